#include "ui/cli/terminal.h"

#include <unistd.h>

#include <cstdlib>
#include <cstring>

namespace plab {

bool use_color(ColorMode mode, int fd) {
    if (mode != ColorMode::auto_detect) return mode == ColorMode::always;
    const char* no_color = std::getenv("NO_COLOR");
    if (no_color && *no_color) return false;
    const char* term = std::getenv("TERM");
    if (!term || std::strcmp(term, "dumb") == 0) return false;
    return isatty(fd) != 0;
}

namespace {
std::string_view ansi_of(BitRole role) {
    switch (role) {
        case BitRole::sign: return "\033[1;91m";      // bright red
        case BitRole::exponent: return "\033[1;92m";  // bright green
        case BitRole::mantissa: return "\033[1;94m";  // bright blue
    }
    return "";
}
}  // namespace

std::string paint(std::string_view text, BitRole role, bool color) {
    if (!color) return std::string(text);
    return std::string(ansi_of(role)).append(text).append("\033[0m");
}

std::string dim(std::string_view text, bool color) {
    if (!color) return std::string(text);
    return std::string("\033[2m").append(text).append("\033[0m");
}

}  // namespace plab
