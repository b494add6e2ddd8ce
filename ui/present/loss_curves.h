#pragma once
// View model of the loss and accuracy panel: the mixed-precision run against
// its FP32 twin, train loss every step and test loss / accuracy at each
// evaluation, decimated for a plot `columns` pixels wide.
#include <string>
#include <vector>

#include "engine/train/run_log.h"
#include "ui/present/plot_columns.h"

namespace plab {

struct Curve {
    std::string name;  // "train (AMP)", "train (FP32 twin)", "test (AMP)", ...
    bool twin = false;
    bool test = false;
    std::vector<XY> points;  // train: column_polyline of min/max; test: one point per evaluation
};

// A train loss that a log axis cannot show, marked at an edge of the plot
// instead: a loss of 0 (or below) at the bottom, NaN or Inf at the top.
enum class LossMarkKind { zero, nonfinite };

struct LossMark {
    LossMarkKind kind = LossMarkKind::nonfinite;
    bool twin = false;
    double x = 0;  // the series point's x, like the curves' points
};

struct LossCurves {
    std::vector<Curve> loss;      // train AMP, train twin, test AMP, test twin (twin ones only when `twin`)
    std::vector<Curve> accuracy;  // test AMP, test twin; values 0..1
    double step_min = 0, step_max = 1;
    double loss_min = 1e-3, loss_max = 1;  // positive bounds for a log y axis (powers of ten around the data)
    std::string summary;  // "loss 0.0412 (twin 0.0398) · acc 97.1% (twin 96.7%)"
    // The AMP run's marks, then the twin's, each in x order: at most one per
    // kind per mark column. A bucket of the decimated history whose losses
    // were partly NaN and partly finite keeps only the finite ones (MinMax),
    // so it is marked only when it held an Inf or nothing but NaN.
    std::vector<LossMark> marks;
};

// A loss for people: "NaN", "Inf", "-Inf", else `digits` significant digits.
std::string loss_value_text(float loss, int digits);

// Non-positive or non-finite losses are left out of the curves (a log axis
// cannot show them) and marked instead, in `mark_columns` columns (0: the
// same as `columns`; a mark is several pixels wide). `twin` says whether the
// run has a twin.
LossCurves make_loss_curves(const RunLogView& log, bool twin, int columns, int mark_columns = 0);

}  // namespace plab
