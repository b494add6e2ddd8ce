#pragma once
// Tick marks of a plot axis, shared by every front end that draws its own
// axes (the ImGui live view draws them by hand; Qt Charts places its own but
// can take the intervals from here). Values are in the axis's own units:
// steps, binades (log2), decades (log10).
#include <string>
#include <vector>

namespace plab {

struct AxisTick {
    double value = 0;  // where the tick sits, in axis units
    std::string text;  // its label
};

// The tick interval for [lo, hi]: 1, 2 or 5 times a power of ten, the
// smallest such that at most `max_ticks` (>= 2) ticks fall in the range, and
// never below `min_interval` (e.g. 1 for steps; 0 for none). 1 when hi <= lo.
double tick_interval(double lo, double hi, int max_ticks, double min_interval = 0);

// Ticks at the multiples of tick_interval() inside [lo, hi], increasing,
// labelled with as many decimals as the interval needs ("0", "2500", "0.25").
std::vector<AxisTick> linear_ticks(double lo, double hi, int max_ticks, double min_interval = 0);

// Ticks of a log axis drawn in exponents of `base` (2 or 10): the whole
// exponents in [lo, hi] at an interval of tick_interval(lo, hi, max_ticks, 1),
// labelled "2^-14" (base 2) or "1e-3", "0.01", "0.1", "1", "10", "1e+3"
// (base 10: decimals between 0.01 and 100, exponents beyond).
std::vector<AxisTick> exponent_ticks(double lo, double hi, int max_ticks, int base);

}  // namespace plab
