#pragma once
// Axis ranges for a live run. A chart whose axis follows data that moves
// every frame lays that axis out anew every frame: Qt Charts re-measures
// every label and re-fits the plot area whenever a range changes, most of
// what a chart's update costs. A steady range moves in steps instead: it is
// kept while the data stays inside it and fills enough of it, and when it
// must move it takes headroom beyond the data, its free ends rounded out to a
// round number, so that the frames after fit again. (At rest a chart shows
// the data's exact range; this is for while the run moves.)
#include <deque>
#include <optional>

namespace plab {

struct AxisSpan {
    double lo = 0;
    double hi = 1;
    bool operator==(const AxisSpan&) const = default;
};

struct SteadyRule {
    bool lo_free = false;   // whether the low end may lie beyond the data (else it is the data's, exactly)
    bool hi_free = true;
    double headroom = 0.1;  // room taken beyond the data at a free end, as a fraction of the data's span
    double min_fill = 0.5;  // the least fraction of a kept range that the data must span
    int patience = 0;       // SteadyAxis: how many updates back the data still counts (0: the latest only)
};

// The range to show for data that spans `fit` (lo < hi), given the range
// shown now (none at first). `shown` is kept while it holds `fit` (a fixed end
// equal to fit's, a free end at or beyond it) and fit spans at least
// rule.min_fill of it. Otherwise it is `fit` with each free end moved out by
// rule.headroom of fit's span, then rounded outward to a multiple of
// rung_at_or_below(rule.headroom * span) (axis_ticks.h): the data fills the new range to
// within one to two headrooms at a free end.
AxisSpan steady_span(const AxisSpan& fit, const std::optional<AxisSpan>& shown, const SteadyRule& rule);

// steady_span over successive updates, for data as noisy as a histogram's
// highest bar: the range must hold what the data spanned over the last
// rule.patience + 1 updates (their envelope; a fixed end is the latest's),
// so a few low updates keep it, and it shrinks once the high ones are that
// many updates old. Data beyond the range moves it at once.
class SteadyAxis {
public:
    explicit SteadyAxis(const SteadyRule& rule) : rule_(rule) {}

    // The range to show for data that spans `fit` now.
    AxisSpan next(const AxisSpan& fit);
    // While `moving` (a chart of a run that trains), next(fit); at rest, fit
    // itself, and the axis forgets what it showed.
    AxisSpan follow(const AxisSpan& fit, bool moving);
    // Forgets the range shown and the updates seen (a chart at rest shows the exact range).
    void reset();

private:
    SteadyRule rule_;
    std::optional<AxisSpan> shown_;
    std::deque<AxisSpan> recent_;  // the latest updates' fits, newest last
};

}  // namespace plab
