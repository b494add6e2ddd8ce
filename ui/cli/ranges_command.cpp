// plab ranges: the representable range of every format.
#include <CLI/CLI.hpp>

#include <iostream>
#include <nlohmann/json.hpp>

#include "engine/numeric/range_table.h"
#include "ui/cli/commands.h"
#include "engine/common/number_text.h"

namespace plab {

namespace {

std::string pad(std::string s, std::size_t width) {
    if (s.size() < width) s.append(width - s.size(), ' ');
    return s;
}

std::string layout_text(FormatId f) {
    const FormatParams p = format_params(f);
    return "1/" + std::to_string(p.exp_bits) + "/" + std::to_string(p.man_bits);
}

void write_json(const FormatRange& r, std::ostream& out) {
    const FormatParams p = format_params(r.format);
    nlohmann::ordered_json j;
    j["format"] = format_name(r.format);
    j["description"] = format_description(r.format);
    j["sign_bits"] = 1;
    j["exponent_bits"] = p.exp_bits;
    j["mantissa_bits"] = p.man_bits;
    j["bias"] = p.bias;
    j["max"] = r.max;
    j["min_normal"] = r.min_normal;
    j["min_subnormal"] = r.min_subnormal;
    j["epsilon"] = r.epsilon;
    j["decimal_digits"] = r.decimal_digits;
    j["min_exponent"] = r.min_exponent;
    j["max_exponent"] = r.max_exponent;
    j["has_inf"] = p.has_inf;
    out << j.dump() << '\n';
}

// "2^-14 = 6.1035156e-05"
std::string power_and_value(double x) { return power_of_two_text(x) + " = " + significant_text(x, 8); }

void write_text(const std::vector<FormatRange>& rows, std::ostream& out) {
    out << pad("format", 8) << pad("s/e/m", 8) << pad("bias", 6) << pad("max", 16) << pad("min normal", 25)
        << pad("min subnormal", 25) << pad("epsilon", 25) << "digits\n";
    for (const FormatRange& r : rows) {
        out << pad(std::string(format_name(r.format)), 8) << pad(layout_text(r.format), 8)
            << pad(std::to_string(format_params(r.format).bias), 6) << pad(significant_text(r.max, 8), 16)
            << pad(power_and_value(r.min_normal), 25) << pad(power_and_value(r.min_subnormal), 25)
            << pad(power_and_value(r.epsilon), 25) << significant_text(r.decimal_digits, 3) << '\n';
    }
}

}  // namespace

void run_ranges(const RangesOptions& options, std::ostream& out) {
    const std::vector<FormatRange> rows = range_table();
    if (!options.json) {
        write_text(rows, out);
        return;
    }
    for (const FormatRange& r : rows) write_json(r, out);
}

void add_ranges_command(CLI::App& app) {
    auto options = std::make_shared<RangesOptions>();
    CLI::App* cmd = app.add_subcommand("ranges", "Show the range table of all formats");
    cmd->footer(
        "Columns: largest finite value, smallest normal and subnormal value, machine epsilon (the gap\n"
        "from 1 to the next value) and decimal digits of precision, (mantissa bits + 1) * log10(2).");
    cmd->add_flag("--json", options->json, "Write JSON Lines, one object per format");
    cmd->callback([options] { run_ranges(*options, std::cout); });
}

}  // namespace plab
