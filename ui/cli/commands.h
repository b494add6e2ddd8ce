#pragma once
// The plab subcommands. Each add_* registers its subcommand and options on
// the CLI11 app; the subcommand runs from its callback after parsing.
// Problems with the user's input are thrown as plab::Error (exit code 2).
#include <iosfwd>
#include <string>
#include <vector>

#include "engine/numeric/format.h"
#include "ui/cli/terminal.h"

namespace CLI {
class App;
}

namespace plab {

struct BitsOptions {
    std::vector<std::string> values;  // "-" reads more values from standard input
    std::string format = "all";
    std::string fp8_overflow = "saturate";
    bool json = false;
    ColorMode color = ColorMode::auto_detect;
};

struct RangesOptions {
    bool json = false;
};

void add_bits_command(CLI::App& app);
void add_ranges_command(CLI::App& app);

// The commands themselves, on explicit streams (tests call these directly).
void run_bits(const BitsOptions& options, std::istream& in, std::ostream& out, bool color);
void run_ranges(const RangesOptions& options, std::ostream& out);

}  // namespace plab
