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

// The decimals a label of a tick at a multiple of `interval` needs: 0 for
// whole intervals, 2 for 0.02, 3 for 0.005.
int tick_decimals(double interval);

// A linear axis from 0 to a round top, for data that reaches up to `hi`
// (> 0): the tick_interval of [0, hi] and its first multiple at or above hi,
// so the top is a labelled round number (0.054 with room for 5: ticks every
// 0.02, top 0.06). {1, 0.2} when hi <= 0.
struct RoundTop {
    double top = 1;
    double interval = 0.2;
};
RoundTop round_top(double hi, int max_ticks);

// The tick interval of an axis in binades (log2 units): the smallest power of
// two, at least 1, whose multiples in [lo, hi] number at most `max_ticks`
// (1, 2, 4, 8, 16, 32, ...: a tick at every binade, every other, ...).
double binade_interval(double lo, double hi, int max_ticks);

// Ticks at the multiples of tick_interval() inside [lo, hi], increasing,
// labelled with as many decimals as the interval needs ("0", "2500", "0.25").
std::vector<AxisTick> linear_ticks(double lo, double hi, int max_ticks, double min_interval = 0);

// Ticks of a log axis drawn in exponents of `base` (2 or 10): the whole
// exponents in [lo, hi] at an interval of tick_interval(lo, hi, max_ticks, 1),
// labelled "2^-14" (base 2) or "1e-3", "0.01", "0.1", "1", "10", "1e+3"
// (base 10: decimals between 0.01 and 100, exponents beyond).
std::vector<AxisTick> exponent_ticks(double lo, double hi, int max_ticks, int base);

}  // namespace plab
