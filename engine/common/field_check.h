#pragma once
// Checks of user-set fields (presets, --set, live edits) with one message
// shape everywhere: "scaler.growth_factor: 0.5 is out of range; allowed > 1".
#include <string>
#include <string_view>

namespace plab {

// Throws plab::Error naming the field path, the rejected value and what is allowed.
[[noreturn]] void reject_field(std::string_view path, std::string_view value, std::string_view allowed);
// The shortest text that reads back as x (float: "0.1", not 0.10000000149011612).
std::string shortest_number(double x);
std::string shortest_number(float x);
// lo <= x <= hi
void check_int_field(std::string_view path, long long x, long long lo, long long hi);
// `ok` is the caller's condition; NaN is always rejected. The value is shown
// as the shortest text that reads back to it.
void check_number_field(std::string_view path, double x, bool ok, std::string_view allowed);
void check_number_field(std::string_view path, float x, bool ok, std::string_view allowed);

}  // namespace plab
