#pragma once
// View model of the loss and accuracy panel: the mixed-precision run against
// its FP32 twin, train loss every step and test loss / accuracy at each
// evaluation, decimated for a plot `columns` pixels wide.
#include <optional>
#include <string>
#include <vector>

#include "engine/train/run_log.h"
#include "ui/present/plot_columns.h"

namespace plab {

struct Curve {
    std::string name;  // "train (AMP)", "train (FP32 twin)", "test (AMP)", ...
    bool twin = false;
    bool test = false;
    // train: column_polyline of min/max, broken by a column of two NaN points
    // where the loss left the log axis between two columns; test: one point
    // per evaluation.
    std::vector<XY> points;
};

// Where a train loss the log axis cannot show (NaN, Inf, 0) begins: a mark
// on the plot's edge at the first step of each run of such steps, so a line
// that stops says why. Read from the decimated series: a bucket counts only
// when all its losses were NaN, or it held an Inf or a loss <= 0 (MinMax
// passes NaN over).
struct LossMark {
    double x = 0;        // the run's first step
    bool top = true;     // NaN and Inf at the top edge, 0 (or below) at the bottom
    bool twin = false;   // the FP32 twin's loss
    bool finite = false; // a loss of 0 or below: finite, but off a log axis
    std::string text;    // "NaN at step 31", "twin: 0 at steps 19-60"
    bool fork = false;   // the fork's train loss (marks_with_fork)
};

struct LossCurves {
    std::vector<Curve> loss;      // train AMP, train twin, test AMP, test twin (twin ones only when `twin`)
    std::vector<Curve> accuracy;  // test AMP, test twin; values 0..1
    double step_min = 0, step_max = 1;
    double loss_min = 1e-3, loss_max = 1;  // positive bounds for a log y axis (powers of ten around the data)
    std::vector<LossMark> marks;  // train losses off the axis, AMP run first
    std::string summary;  // "loss 0.0412 (twin 0.0398) · acc 97.1% (twin 96.7%)" (· "test ppl 9.8 (twin 9.7)")
};

// Non-positive or non-finite losses are left out of the curves (a log axis
// cannot show them). `twin` says whether the run has a twin; a
// `language_model`'s summary adds the test perplexity, e^(test loss).
LossCurves make_loss_curves(const RunLogView& log, bool twin, int columns, bool language_model = false);

// The axes that show a run and its fork (when there is one) together; a
// fork with no drawn loss yet leaves the run's axes as they are (its default
// bounds, 10^-3..1, would squeeze the run's curves).
struct LossAxes {
    double step_min = 0, step_max = 1, loss_min = 1e-3, loss_max = 1;
};
LossAxes loss_axes(const LossCurves& run, const std::optional<LossCurves>& fork);

// The main run's marks, then the fork's (its own curves' marks), flagged
// and named as the fork's: "fork: 0 at steps 1-30". A fork whose every loss
// is off the axis has no line, so its marks are all that show it.
std::vector<LossMark> marks_with_fork(std::vector<LossMark> main, const std::vector<LossMark>& fork);

// A loss as people read it: `digits` significant digits, "NaN", "Inf", "-Inf"
// (never the C library's "-nan").
std::string loss_text(float loss, int digits = 3);

}  // namespace plab
