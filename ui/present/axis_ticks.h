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

// The 1-2-5 ladder every tick interval and axis grain is taken from: 1, 2
// and 5 times a power of ten. A rung keeps its decade and multiplier apart,
// so that its value is one product, the same double however it was reached.
struct TickRung {
    double decade = 1;   // a power of ten
    int multiplier = 1;  // 1, 2 or 5
    double value() const { return multiplier * decade; }
    TickRung next() const;  // the rung above: 1 -> 2 -> 5 -> 10 -> ...
};
// The largest rung at or below x (x > 0 and finite).
TickRung rung_at_or_below(double x);

// The tick interval for [lo, hi]: 1, 2 or 5 times a power of ten, the
// smallest such that at most `max_ticks` (>= 2) ticks fall in the range, and
// never below `min_interval` (e.g. 1 for steps; 0 for none). 1 when hi <= lo.
double tick_interval(double lo, double hi, int max_ticks, double min_interval = 0);

// The decimals a label of a tick at a multiple of `interval` needs: 0 for
// whole intervals, 2 for 0.02, 3 for 0.005.
int tick_decimals(double interval);

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

// Room for the labels of an axis: `max_ticks` at ease, `most_ticks` (>=
// max_ticks) when crowded, and the fewest that still label the range.
struct TickRoom {
    int max_ticks = 2;
    int most_ticks = 2;
    int min_ticks = 3;
};

// tick_interval(lo, hi, room.max_ticks, min_interval), unless that leaves
// fewer than room.min_ticks ticks: then the largest smaller 1-2-5 interval
// (>= min_interval) that gives at least min_ticks and at most most_ticks
// ticks; when none does, tick_interval()'s.
double readable_interval(double lo, double hi, const TickRoom& room, double min_interval = 0);

// The ticks of readable_interval(), labelled as linear_ticks() and
// exponent_ticks() label theirs.
std::vector<AxisTick> readable_linear_ticks(double lo, double hi, const TickRoom& room, double min_interval = 0);
std::vector<AxisTick> readable_exponent_ticks(double lo, double hi, const TickRoom& room, int base);

// A linear axis that ends on labelled ticks: [lo, hi] widened to the
// multiples of a 1-2-5 interval around it, so that no part of the range
// shown is left without a label below or above it. The interval is chosen
// as readable_interval() chooses, counting the ticks of the widened range;
// when that range is over 1.2 times [lo, hi] (the widening wastes the
// plot), the smallest interval whose widened range holds at most
// room.most_ticks ticks, if smaller. An empty range (hi <= lo) is taken as
// lo - 1 .. lo + 1.
struct TickedRange {
    double lo = 0, hi = 1;
    double interval = 1;
    std::vector<AxisTick> ticks;
};
TickedRange ticked_range(double lo, double hi, const TickRoom& room);

}  // namespace plab
