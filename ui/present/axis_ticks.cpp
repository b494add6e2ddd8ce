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

}  // namespace

double tick_interval(double lo, double hi, int max_ticks, double min_interval) {
    if (!(hi > lo) || !std::isfinite(hi - lo)) return std::max(1.0, min_interval);
    const int room = std::max(max_ticks, 2);
    // Start one decade below the span's own scale and walk up 1, 2, 5, 10, ...
    double decade = std::pow(10.0, std::floor(std::log10((hi - lo) / room)) - 1);
    for (;;) {
        for (double m : {1.0, 2.0, 5.0}) {
            const double interval = m * decade;
            if (interval < min_interval) continue;
            if (multiples(lo, hi, interval).size() <= static_cast<std::size_t>(room)) return interval;
        }
        decade *= 10;
    }
}

int tick_decimals(double interval) {
    return interval >= 1 ? 0 : static_cast<int>(std::ceil(-std::log10(interval) - 1e-9));
}

RoundTop round_top(double hi, int max_ticks) {
    if (!(hi > 0) || !std::isfinite(hi)) return {};
    const double interval = tick_interval(0, hi, max_ticks);
    // The same slack as multiples(): a hi that is a multiple but for rounding is the top itself.
    const double top = std::ceil(hi / interval - 1e-9) * interval;
    return {top, interval};
}

double binade_interval(double lo, double hi, int max_ticks) {
    const auto room = static_cast<std::size_t>(std::max(max_ticks, 2));
    double interval = 1;
    if (!(hi > lo) || !std::isfinite(hi - lo)) return interval;
    while (multiples(lo, hi, interval).size() > room) interval *= 2;
    return interval;
}

std::vector<AxisTick> linear_ticks(double lo, double hi, int max_ticks, double min_interval) {
    const double interval = tick_interval(lo, hi, max_ticks, min_interval);
    const int decimals = tick_decimals(interval);
    std::vector<AxisTick> ticks;
    for (double v : multiples(lo, hi, interval)) ticks.push_back({v, fixed_text(v, decimals)});
    return ticks;
}

std::vector<AxisTick> exponent_ticks(double lo, double hi, int max_ticks, int base) {
    const double interval = tick_interval(lo, hi, max_ticks, 1);
    std::vector<AxisTick> ticks;
    for (double v : multiples(lo, hi, interval)) {
        const int k = static_cast<int>(std::lround(v));
        ticks.push_back({v, base == 2 ? "2^" + std::to_string(k) : decade_text(k)});
    }
    return ticks;
}

}  // namespace plab
