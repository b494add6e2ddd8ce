#include "ui/present/series_axes.h"

#include <cmath>

namespace plab {

double series_x(const SeriesPoint& p) {
    return 0.5 * (static_cast<double>(p.first_step) + static_cast<double>(p.last_step));
}

StepAxis step_axis(const std::vector<SeriesPoint>& series) {
    if (series.empty()) return {};
    return {static_cast<double>(series.front().first_step - 1), static_cast<double>(series.back().last_step)};
}

void Extent::add(double v) {
    if (std::isnan(v)) return;
    lo = std::min(lo, v);
    hi = std::max(hi, v);
}

void Extent::add(const std::vector<ColumnRange>& columns) {
    for (const ColumnRange& c : columns) {
        add(c.lo);
        add(c.hi);
    }
}

Bounds integer_bounds(const Extent& e) {
    const double lo = std::floor(e.lo);
    const double hi = std::ceil(e.hi);
    if (lo < hi) return {lo, hi};
    return {lo - 1, hi + 1};
}

}  // namespace plab
