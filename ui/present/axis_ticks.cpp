#include "ui/present/axis_ticks.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace plab {

namespace {

// Multiples of `interval` in [lo, hi]; a hair of slack at both ends so that
// a bound which is itself a multiple (up to rounding) keeps its tick.
std::vector<double> multiples(double lo, double hi, double interval) {
    std::vector<double> out;
    const double slack = interval * 1e-9;
    const double first = std::ceil((lo - slack) / interval);
    const double last = std::floor((hi + slack) / interval);
    for (double k = first; k <= last; ++k) out.push_back(k == 0 ? 0.0 : k * interval);
    return out;
}

std::string fixed_text(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

std::string decade_text(int k) {
    if (k >= -2 && k <= 2) return fixed_text(std::pow(10.0, k), std::max(0, -k));
    char buf[32];
    std::snprintf(buf, sizeof buf, "1e%+d", k);
    return buf;
}

std::vector<AxisTick> linear_every(double lo, double hi, double interval) {
    const int decimals = tick_decimals(interval);
    std::vector<AxisTick> ticks;
    for (double v : multiples(lo, hi, interval)) ticks.push_back({v, fixed_text(v, decimals)});
    return ticks;
}

std::vector<AxisTick> exponent_every(double lo, double hi, double interval, int base) {
    std::vector<AxisTick> ticks;
    for (double v : multiples(lo, hi, interval)) {
        const int k = static_cast<int>(std::lround(v));
        ticks.push_back({v, base == 2 ? "2^" + std::to_string(k) : decade_text(k)});
    }
    return ticks;
}

constexpr double kMostWidening = 1.2;

// The ticks of [lo, hi] widened to multiples of `interval`.
std::size_t widened_count(double lo, double hi, double interval) {
    const double slack = interval * 1e-9;
    const double first = std::floor((lo + slack) / interval), last = std::ceil((hi - slack) / interval);
    return static_cast<std::size_t>(last - first) + 1;
}

// The smallest 1-2-5 interval (>= min_interval) whose `count` fits
// room.max_ticks, or the fallback readable_interval() describes. Walks up
// from a decade below the crowded room's interval, so both are met in order.
template <typename Count>
double pick_interval(double lo, double hi, const TickRoom& room, double min_interval, Count count) {
    const std::size_t ease = static_cast<std::size_t>(std::max(room.max_ticks, 2));
    const std::size_t most = std::max(ease, static_cast<std::size_t>(std::max(room.most_ticks, 2)));
    const std::size_t least = static_cast<std::size_t>(std::max(room.min_ticks, 0));
    double fallback = 0;
    for (TickRung rung{std::pow(10.0, std::floor(std::log10((hi - lo) / static_cast<double>(most))) - 1), 1};;
         rung = rung.next()) {
        const double interval = rung.value();
        if (interval < min_interval) continue;
        const std::size_t n = count(interval);
        if (n <= ease) return n >= least || fallback == 0 ? interval : fallback;
        if (n >= least && n <= most) fallback = interval;
    }
}

}  // namespace

TickRung TickRung::next() const {
    if (multiplier == 5) return {decade * 10, 1};
    return {decade, multiplier == 1 ? 2 : 5};
}

TickRung rung_at_or_below(double x) {
    const double decade = std::pow(10.0, std::floor(std::log10(x)));
    const double m = x / decade;
    return {decade, m >= 5 ? 5 : m >= 2 ? 2 : 1};
}

double tick_interval(double lo, double hi, int max_ticks, double min_interval) {
    // The plain rule is the readable one with no crowding room and no least count.
    return readable_interval(lo, hi, {max_ticks, max_ticks, 0}, min_interval);
}

int tick_decimals(double interval) {
    return interval >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(interval) - 1e-9));
}

double binade_interval(double lo, double hi, int max_ticks) {
    const auto room = static_cast<std::size_t>(std::max(max_ticks, 2));
    double interval = 1;
    if (!(hi > lo) || !std::isfinite(hi - lo)) return interval;
    while (multiples(lo, hi, interval).size() > room) interval *= 2;
    return interval;
}

std::vector<AxisTick> linear_ticks(double lo, double hi, int max_ticks, double min_interval) {
    return linear_every(lo, hi, tick_interval(lo, hi, max_ticks, min_interval));
}

std::vector<AxisTick> exponent_ticks(double lo, double hi, int max_ticks, int base) {
    return exponent_every(lo, hi, tick_interval(lo, hi, max_ticks, 1), base);
}

double readable_interval(double lo, double hi, const TickRoom& room, double min_interval) {
    if (!(hi > lo) || !std::isfinite(hi - lo)) return std::max(1.0, min_interval);
    return pick_interval(lo, hi, room, min_interval,
                         [&](double interval) { return multiples(lo, hi, interval).size(); });
}

std::vector<AxisTick> readable_linear_ticks(double lo, double hi, const TickRoom& room, double min_interval) {
    return linear_every(lo, hi, readable_interval(lo, hi, room, min_interval));
}

std::vector<AxisTick> readable_exponent_ticks(double lo, double hi, const TickRoom& room, int base) {
    return exponent_every(lo, hi, readable_interval(lo, hi, room, 1), base);
}

TickedRange ticked_range(double lo, double hi, const TickRoom& room) {
    if (!(hi > lo) || !std::isfinite(hi - lo)) {
        lo = std::isfinite(lo) ? lo - 1 : -1;
        hi = lo + 2;
    }
    TickedRange r;
    const auto count = [&](double interval) { return widened_count(lo, hi, interval); };
    const auto span = [&](double interval) {
        const double slack = interval * 1e-9;
        return (std::ceil((hi - slack) / interval) - std::floor((lo + slack) / interval)) * interval;
    };
    r.interval = pick_interval(lo, hi, room, 0, count);
    // Widening by more than a fifth wastes the plot's height: a smaller
    // interval that the crowded room still holds, if there is one.
    if (span(r.interval) > kMostWidening * (hi - lo)) {
        const TickRoom crowded{std::max(room.max_ticks, room.most_ticks), room.most_ticks, room.min_ticks};
        r.interval = std::min(r.interval, pick_interval(lo, hi, crowded, 0, count));
    }
    const double slack = r.interval * 1e-9;
    r.lo = std::floor((lo + slack) / r.interval) * r.interval;
    r.hi = std::ceil((hi - slack) / r.interval) * r.interval;
    r.ticks = linear_every(r.lo, r.hi, r.interval);
    return r;
}

}  // namespace plab
