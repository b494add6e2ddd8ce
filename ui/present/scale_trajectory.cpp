#include "ui/present/scale_trajectory.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string_view>

#include "engine/common/number_text.h"
#include "ui/present/scale_text.h"
#include "ui/present/series_axes.h"

namespace plab {

namespace {

// One event before merging: a series point (whose count and steps it
// covers) or one live edit.
struct Event {
    double x = 0;
    double y = 0;
    std::int64_t first_step = 0;
    std::int64_t last_step = 0;
    std::int64_t count = 0;
    std::int64_t skipped = 0;           // overflows only
    const LiveEdit* edit = nullptr;     // edits only
};

// Events of one kind that share a pixel column, as [first, last] indices
// into the kind's events.
struct EventRun {
    std::size_t first = 0;
    std::size_t last = 0;
};

// log2 of a scale; NaN (left out of the plot) for one a log axis cannot show.
// The scaler keeps every scale finite and > 0, so this guards bad input only.
double log2_scale(float scale) {
    return std::isfinite(scale) && scale > 0 ? std::log2(static_cast<double>(scale))
                                             : std::numeric_limits<double>::quiet_NaN();
}

// Markers sit at the top of their column's stroke: an overflow happens at the
// highest scale of its bucket, a growth reaches it.
double marker_y(const SeriesPoint& p) { return log2_scale(p.scale.max); }

std::string count_text(std::int64_t n, std::string_view singular, std::string_view plural) {
    return std::to_string(n) + " " + std::string(n == 1 ? singular : plural);
}

std::string steps_text(std::int64_t first, std::int64_t last) {
    return first == last ? "step " + std::to_string(first)
                         : "steps " + std::to_string(first) + "-" + std::to_string(last);
}

bool grows(ScalerKind kind) { return kind == ScalerKind::dynamic || kind == ScalerKind::hysteresis; }

// Runs of events (sorted by x) per pixel column. min_max_columns over the
// events' indices gives each column its smallest and largest index, and as
// the events are in x order those bound exactly the events it holds; events
// off the axis are left out the same way the line's samples are.
std::vector<EventRun> runs_by_column(const std::vector<Event>& events, const StepAxis& axis, int columns) {
    std::vector<double> x, index;
    x.reserve(events.size());
    index.reserve(events.size());
    for (std::size_t i = 0; i < events.size(); ++i) {
        x.push_back(events[i].x);
        index.push_back(static_cast<double>(i));
    }
    std::vector<EventRun> runs;
    for (const ColumnRange& c : min_max_columns(x, index, index, axis.min, axis.max, std::max(columns, 1))) {
        runs.push_back({static_cast<std::size_t>(c.lo), static_cast<std::size_t>(c.hi)});
    }
    return runs;
}

// "overflow, step skipped" for one step; "3 overflows, steps skipped" for a bucket.
std::string overflow_text(const Event& e, bool one_step) {
    const std::string what = one_step ? "overflow" : count_text(e.count, "overflow", "overflows");
    const std::string_view steps = e.count == 1 ? "step" : "steps";
    std::string fate;
    if (e.skipped == e.count)
        fate = std::string(steps) + " skipped";
    else if (e.skipped == 0)
        fate = std::string(steps) + " applied";  // kind none checks nothing and applies them
    else
        fate = std::to_string(e.skipped) + " skipped";
    return what + ", " + fate;
}

constexpr std::size_t kListedEdits = 3;

// "after step 120: scaler.growth_interval=100"; an edit at step 0 was made
// before the first step. Several: "after steps 120-125: 4 edits: a; b; c; +1 more".
std::string edit_text(const std::vector<Event>& events, const EventRun& run) {
    const Event& first = events[run.first];
    const Event& last = events[run.last];
    const std::string when = first.first_step == 0 && last.first_step == 0
                                 ? "before step 1"
                                 : "after " + steps_text(first.first_step, last.first_step);
    if (run.first == run.last) return when + ": " + first.edit->assignment;
    const std::size_t n = run.last - run.first + 1;
    std::string text = when + ": " + count_text(static_cast<std::int64_t>(n), "edit", "edits") + ": ";
    for (std::size_t i = 0; i < std::min(n, kListedEdits); ++i) {
        if (i > 0) text += "; ";
        text += events[run.first + i].edit->assignment;
    }
    if (n > kListedEdits) text += "; +" + std::to_string(n - kListedEdits) + " more";
    return text;
}

// The events of a run merged: counts summed, steps spanned, y the highest.
Event merged(const std::vector<Event>& events, const EventRun& run) {
    Event m = events[run.first];
    for (std::size_t i = run.first + 1; i <= run.last; ++i) {
        m.last_step = events[i].last_step;
        m.count += events[i].count;
        m.skipped += events[i].skipped;
        m.y = std::max(m.y, events[i].y);
    }
    return m;
}

std::string event_text(ScaleEventKind kind, const Event& m) {
    const bool one_step = m.first_step == m.last_step;
    std::string what;
    switch (kind) {
        case ScaleEventKind::overflow: what = overflow_text(m, one_step); break;
        case ScaleEventKind::backoff: what = one_step ? "backoff" : count_text(m.count, "backoff", "backoffs"); break;
        case ScaleEventKind::growth: what = one_step ? "growth" : count_text(m.count, "growth", "growths"); break;
        case ScaleEventKind::edit: break;  // edit_text
    }
    return steps_text(m.first_step, m.last_step) + ": " + what;
}

void add_markers(ScaleEventKind kind, const std::vector<Event>& events, const StepAxis& axis, int columns,
                 std::vector<ScaleMarker>& out) {
    for (const EventRun& run : runs_by_column(events, axis, columns)) {
        const Event m = merged(events, run);
        const std::string text = kind == ScaleEventKind::edit ? edit_text(events, run) : event_text(kind, m);
        out.push_back({kind, m.x, m.y, text});
    }
}

// The series points whose `count` field is > 0, as events.
std::vector<Event> point_events(const std::vector<SeriesPoint>& series, std::int64_t SeriesPoint::*count) {
    std::vector<Event> events;
    for (const SeriesPoint& p : series) {
        if (p.*count <= 0) continue;
        events.push_back({series_x(p), marker_y(p), p.first_step, p.last_step, p.*count, p.skipped, nullptr});
    }
    return events;
}

// The series point covering `step`, or the nearest one (series not empty).
const SeriesPoint& point_at(const std::vector<SeriesPoint>& series, std::int64_t step) {
    const auto it = std::lower_bound(series.begin(), series.end(), step,
                                     [](const SeriesPoint& p, std::int64_t s) { return p.last_step < s; });
    return it == series.end() ? series.back() : *it;
}

std::vector<Event> edit_events(const EditList& edits, const std::vector<SeriesPoint>& series) {
    std::vector<Event> events;
    for (std::size_t i = 0; i < edits.size(); ++i) {
        const LiveEdit& e = edits[i];
        if (e.assignment.rfind("scaler.", 0) != 0) continue;
        const double y = marker_y(point_at(series, e.step));
        events.push_back({static_cast<double>(e.step), y, e.step, e.step, 1, 0, &e});
    }
    // Runs by column need x order; a RunLog records edits in step order
    // already, but does not enforce it.
    std::stable_sort(events.begin(), events.end(), [](const Event& a, const Event& b) { return a.x < b.x; });
    return events;
}

std::vector<ScaleMarker> scale_markers(const RunLogView& log, const StepAxis& axis, int columns) {
    std::vector<ScaleMarker> markers;
    add_markers(ScaleEventKind::overflow, point_events(log.series, &SeriesPoint::found_inf), axis, columns, markers);
    add_markers(ScaleEventKind::backoff, point_events(log.series, &SeriesPoint::backoffs), axis, columns, markers);
    add_markers(ScaleEventKind::growth, point_events(log.series, &SeriesPoint::growths), axis, columns, markers);
    add_markers(ScaleEventKind::edit, edit_events(log.edits, log.series), axis, columns, markers);
    return markers;
}

// "scale 2^16 · 3 overflows · 2 backoffs · 1 growth": the scale the next step
// uses and the run's totals.
std::string scale_summary(const RunLogView& log) {
    const StepRecord* latest = log.latest();
    if (latest == nullptr) return "no steps yet";
    const RunTotals& t = log.totals;
    return "scale " + scale_text(latest->scale_after) + " · " + count_text(t.overflows, "overflow", "overflows") +
           " · " + count_text(t.backoffs, "backoff", "backoffs") + " · " + count_text(t.growths, "growth", "growths");
}

}  // namespace

ScaleTrajectory make_scale_trajectory(const RunLogView& log, const RunConfig& config, int columns,
                                      int marker_columns) {
    ScaleTrajectory t;
    const StepRecord* latest = log.latest();
    t.growth_tracker = latest != nullptr ? latest->growth_tracker : 0;
    t.growth_interval = grows(config.scaler.kind) ? config.scaler.growth_interval : 0;
    if (t.growth_interval == 0) t.growth_note = "no growth";  // the kind shows beside it; the bar is narrow
    t.summary = scale_summary(log);
    // Every scaler but none skips a step with a non-finite gradient (LossScaler).
    t.overflow_key = config.scaler.kind == ScalerKind::none ? "overflow (applied anyway)" : "overflow (skipped)";
    if (log.series.empty()) return t;  // no scale to place edits at either

    const StepAxis axis = step_axis(log.series);
    t.step_min = axis.min;
    t.step_max = axis.max;
    const std::vector<ColumnRange> line = series_columns(log.series, &SeriesPoint::scale, log2_scale, axis, columns);
    t.line = column_polyline(line);
    Extent extent;
    extent.add(line);
    if (!extent.empty()) {
        const Bounds b = integer_bounds(extent);
        t.log2_min = b.lo;
        t.log2_max = b.hi;
    }
    t.markers = scale_markers(log, axis, marker_columns > 0 ? marker_columns : columns);
    return t;
}

ScaleAxes scale_axes(const ScaleTrajectory& run, const std::optional<ScaleTrajectory>& fork) {
    ScaleAxes a{run.step_min, run.step_max, run.log2_min, run.log2_max};
    if (!fork || fork->line.empty()) return a;
    a.step_max = std::max(a.step_max, fork->step_max);
    a.log2_min = std::min(a.log2_min, fork->log2_min);
    a.log2_max = std::max(a.log2_max, fork->log2_max);
    return a;
}

int marker_columns_for(double width_px) { return std::max(1, static_cast<int>(width_px / kMarkerPitchPx)); }

}  // namespace plab
