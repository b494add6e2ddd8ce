#include "ui/present/plot_columns.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "engine/common/error.h"

namespace plab {

namespace {

// The running extremes of one pixel column.
struct Bucket {
    double lo = std::numeric_limits<double>::infinity();
    double hi = -std::numeric_limits<double>::infinity();
    bool used = false;
};

void check_arguments(std::size_t nx, std::size_t nlo, std::size_t nhi, double x_min, double x_max, int columns) {
    if (nx != nlo || nx != nhi) throw Error("min_max_columns: x, lo and hi must be equally long");
    if (columns < 1) throw Error("min_max_columns: columns is " + std::to_string(columns) + "; it must be >= 1");
    if (!(x_max > x_min)) throw Error("min_max_columns: x_max must be greater than x_min");
}

}  // namespace

std::vector<ColumnRange> min_max_columns(std::span<const double> x, std::span<const double> lo,
                                         std::span<const double> hi, double x_min, double x_max, int columns) {
    check_arguments(x.size(), lo.size(), hi.size(), x_min, x_max, columns);
    std::vector<Bucket> buckets(static_cast<std::size_t>(columns));
    const double x_range = x_max - x_min;
    const double width = x_range / columns;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (!(x[i] >= x_min && x[i] <= x_max)) continue;  // outside, or a NaN x
        // A NaN at one end leaves the other as the sample's only value.
        const double l = std::isnan(lo[i]) ? hi[i] : lo[i];
        const double h = std::isnan(hi[i]) ? lo[i] : hi[i];
        if (std::isnan(l)) continue;
        // Multiply, then divide once: for integer steps this is the exact
        // floor (a precomputed reciprocal could round a step on a column
        // boundary into the column before). x == x_max lands one past the
        // last column; it belongs to the last.
        const int c = std::min(columns - 1, static_cast<int>((x[i] - x_min) * columns / x_range));
        Bucket& b = buckets[static_cast<std::size_t>(c)];
        b.lo = std::min(b.lo, l);
        b.hi = std::max(b.hi, h);
        b.used = true;
    }
    std::vector<ColumnRange> out;
    for (std::size_t c = 0; c < buckets.size(); ++c) {
        if (!buckets[c].used) continue;
        out.push_back({x_min + (static_cast<double>(c) + 0.5) * width, buckets[c].lo, buckets[c].hi});
    }
    return out;
}

std::vector<XY> column_polyline(const std::vector<ColumnRange>& columns) {
    std::vector<XY> line;
    line.reserve(2 * columns.size());
    for (const ColumnRange& c : columns) {
        line.push_back({c.x, c.lo});
        line.push_back({c.x, c.hi});
    }
    return line;
}

std::vector<XY> log10_points(std::vector<XY> points) {
    for (XY& p : points) p.y = std::log10(p.y);
    return points;
}

}  // namespace plab
