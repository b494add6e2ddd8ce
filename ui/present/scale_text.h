#pragma once
// A loss scale as text for people, and back: a power of two as such
// ("2^-89"), any other scale as a short decimal ("1.5", "3e-08"). Read back,
// "2^k" and plain or scientific decimals ("1e-8", "0.25") are accepted, so a
// field that shows a scale can also take one typed in either form.
#include <optional>
#include <string>
#include <string_view>

namespace plab {

// "2^16", "2^-89"; otherwise 6 significant digits, "%g" style ("1.5", "3e-08");
// "inf", "nan" for what is not finite.
std::string scale_text(double scale);

// The value of "2^k" (k a whole number, spaces allowed around it) or of a
// decimal ("1e-8", "0.25", "65536"); none for anything else or trailing text.
std::optional<double> parse_scale_text(std::string_view text);

// A scale typed where only powers of two belong (init_scale): any text
// parse_scale_text() reads, a value in between rounded to the nearest power
// of two in log2 ("6.5e4" and "5e4" give 2^16, "4e4" gives 2^15). A power of
// two multiplies and divides every gradient exactly; any other scale rounds
// them twice. None for what is not a positive scale.
std::optional<double> parse_power_of_two_scale(std::string_view text);

}  // namespace plab
