#pragma once
// A command-line option's integer, range-checked, with the messages of the
// preset checks (flag, value, allowed values), for every command's options.
#include <charconv>
#include <string>
#include <type_traits>

#include "engine/common/error.h"

namespace plab {

// `text` as an integer in lo..hi; the messages read like the preset checks'.
template <typename Int>
Int parse_integer_option(const std::string& flag, const std::string& text, Int lo, Int hi, const std::string& allowed) {
    Int value{};
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, value);
    const bool negative_unsigned = std::is_unsigned_v<Int> && text.size() > 1 && text[0] == '-' &&
                                   text.find_first_not_of("0123456789", 1) == std::string::npos;
    if (negative_unsigned || ec == std::errc::result_out_of_range ||
        (ec == std::errc() && ptr == end && (value < lo || value > hi)))
        throw Error(flag + ": " + text + " is out of range; allowed " + allowed);
    if (ec != std::errc() || ptr != end) throw Error(flag + ": '" + text + "' is not an integer; allowed " + allowed);
    return value;
}

}  // namespace plab
