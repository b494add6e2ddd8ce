#pragma once
// Internal to ui/present: how the run-log presenters (scale trajectory, loss
// curves) place a RunLogView's decimated series on a plot, so both panels
// agree on the step axis and on where a point sits.
#include <algorithm>
#include <limits>
#include <vector>

#include "engine/train/run_log.h"
#include "ui/present/plot_columns.h"

namespace plab {

// A series point is drawn at the centre of the steps it covers: a point of
// one step sits exactly on its step, a merged point in the middle of its
// bucket (which step inside it held an event is no longer known).
double series_x(const SeriesPoint& p);

struct StepAxis {
    double min = 0;
    double max = 1;
};

// From the step boundary before the first recorded step (0 for a run from
// its start, the fork step for a fork, whose log starts after it) to the last
// recorded step, so an edit made before the first step is on the axis.
// [0, 1] for an empty series; max > min always.
StepAxis step_axis(const std::vector<SeriesPoint>& series);

// Smallest and largest of the values added; NaN is passed over.
struct Extent {
    double lo = std::numeric_limits<double>::infinity();
    double hi = -std::numeric_limits<double>::infinity();

    void add(double v);
    void add(const std::vector<ColumnRange>& columns);
    bool empty() const { return !(lo <= hi); }
};

struct Bounds {
    double lo = 0;
    double hi = 1;
};

// Integer bounds around a non-empty extent given in log units: floor and
// ceil, widened by one on each side when they meet, so a flat line (a static
// scale) is drawn across the middle of the plot, not along its border.
Bounds integer_bounds(const Extent& e);

// Min/max per pixel column of one MinMax field of the series over the axis,
// both ends mapped through `map` (monotone increasing; NaN for a value the
// plot cannot show, which is then left out). A plot narrower than one column
// is given one.
template <typename Map>
std::vector<ColumnRange> series_columns(const std::vector<SeriesPoint>& series, MinMax SeriesPoint::*field,
                                        Map map, const StepAxis& axis, int columns) {
    std::vector<double> x, lo, hi;
    x.reserve(series.size());
    lo.reserve(series.size());
    hi.reserve(series.size());
    for (const SeriesPoint& p : series) {
        x.push_back(series_x(p));
        lo.push_back(map((p.*field).min));
        hi.push_back(map((p.*field).max));
    }
    return min_max_columns(x, lo, hi, axis.min, axis.max, std::max(columns, 1));
}

}  // namespace plab
