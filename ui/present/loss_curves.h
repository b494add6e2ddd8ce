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

struct LossCurves {
    std::vector<Curve> loss;      // train AMP, train twin, test AMP, test twin (twin ones only when `twin`)
    std::vector<Curve> accuracy;  // test AMP, test twin; values 0..1
    double step_min = 0, step_max = 1;
    double loss_min = 1e-3, loss_max = 1;  // positive bounds for a log y axis (powers of ten around the data)
    std::string summary;  // "loss 0.0412 (twin 0.0398) · acc 97.1% (twin 96.7%)"
};

// Non-positive or non-finite losses are left out of the curves (a log axis
// cannot show them). `twin` says whether the run has a twin.
LossCurves make_loss_curves(const RunLogView& log, bool twin, int columns);

}  // namespace plab
