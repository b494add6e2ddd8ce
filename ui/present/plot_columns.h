#pragma once
// Decimation of a plotted series to the pixel columns that show it. Each
// column keeps the smallest and largest value of the samples that fall in
// it, so a spike between two drawn points never disappears, and a redraw
// costs O(samples + columns) however long the run was.
#include <span>
#include <vector>

namespace plab {

struct XY {
    double x = 0;
    double y = 0;
};

// One pixel column: the extremes of the samples whose x falls in it.
struct ColumnRange {
    double x = 0;   // the column's centre, in data units
    double lo = 0;  // smallest value
    double hi = 0;  // largest value
};

// Splits [x_min, x_max] into `columns` (>= 1) equal columns and gives, for
// each column that holds at least one sample, its extremes: sample i is at
// x[i] with extremes lo[i] <= hi[i]. NaN values are skipped (a sample whose
// lo and hi are both NaN counts for nothing); samples outside [x_min, x_max]
// are left out; columns without samples are omitted. Spans must be equally
// long; x_max > x_min. Columns come out in increasing x.
std::vector<ColumnRange> min_max_columns(std::span<const double> x, std::span<const double> lo,
                                         std::span<const double> hi, double x_min, double x_max, int columns);

// The polyline a chart draws for the columns: each column's lo, then its hi,
// at its x (a vertical stroke per column, joined column to column).
std::vector<XY> column_polyline(const std::vector<ColumnRange>& columns);

// The points with y replaced by log10(y), for a plot whose y axis is drawn
// in decades (0 becomes -Inf, a negative y NaN: the plots' edge marks show them).
std::vector<XY> log10_points(std::vector<XY> points);

}  // namespace plab
