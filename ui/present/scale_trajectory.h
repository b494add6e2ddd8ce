#pragma once
// View model of the loss-scale panel: log2 of the loss scale over the steps
// of a run, the scaler's events as markers, and its progress toward the next
// growth. Built from a RunLogView (any length of run: it reads the decimated
// series) for a plot `columns` pixels wide.
#include <optional>
#include <string>
#include <vector>

#include "engine/train/run_config.h"
#include "engine/train/run_log.h"
#include "ui/present/plot_columns.h"

namespace plab {

enum class ScaleEventKind { overflow, backoff, growth, edit };

struct ScaleMarker {
    ScaleEventKind kind = ScaleEventKind::overflow;
    double step = 0;        // x
    double log2_scale = 0;  // y: the scale at that step
    std::string text;       // tooltip: "step 412: overflow, step skipped"
};

struct ScaleTrajectory {
    std::vector<XY> line;              // log2(scale used), min/max per column (column_polyline)
    std::vector<ScaleMarker> markers;  // at most one per kind per marker column
    double step_min = 0, step_max = 1;        // x axis (step_max > step_min even for an empty log)
    double log2_min = 0, log2_max = 1;        // y axis: integer bounds around the data, at least 1 apart
    int growth_tracker = 0;                   // clean steps since the last growth or backoff
    int growth_interval = 0;                  // from the config (0 when the scaler does not grow)
    std::string growth_note;                  // when it does not: "no growth"; else empty
    std::string summary;                      // "scale 2^16 · 3 overflows · 2 backoffs · 1 growth"
    // The colour key's word for overflow markers: "overflow (skipped)", or,
    // when the scaler is off and nothing is skipped, "overflow (applied anyway)".
    std::string overflow_key;
};

// Overflow markers come from series points with found_inf > 0, backoff and
// growth ones from their counts; edit markers from log.edits whose key starts
// with "scaler." (text: the assignment). `config` is the run's current one.
// `marker_columns` (0: the same as `columns`) buckets the markers apart from the line:
// a marker is several pixels wide, so a plot can ask for fewer marker columns than line columns.
ScaleTrajectory make_scale_trajectory(const RunLogView& log, const RunConfig& config, int columns,
                                      int marker_columns = 0);

// Marker columns for a plot `width_px` wide: one per kMarkerPitchPx pixels,
// so that markers about ten pixels wide stand apart with a gap between them
// (one per eight pixels merged a long run's overflows into a solid band);
// a column's marker stands for every event in it (its tooltip counts them).
inline constexpr double kMarkerPitchPx = 14;
int marker_columns_for(double width_px);

// The axes that show a run and its fork (when there is one) together. A fork
// with no step yet has nothing to show: it leaves the run's axes as they are
// (its empty-log bounds, 0..1, would flatten a sawtooth at 2^16 to a line).
struct ScaleAxes {
    double step_min = 0, step_max = 1, log2_min = 0, log2_max = 1;
};
ScaleAxes scale_axes(const ScaleTrajectory& run, const std::optional<ScaleTrajectory>& fork);

}  // namespace plab
