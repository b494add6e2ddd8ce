#pragma once
// The decision boundary of a 2-D classification run: the class each model
// predicts over a square grid of points covering the data, taken every
// TrainerOptions::boundary_every steps. A view concern (the workbench's
// decision panel), not part of the run's config: taking it changes no other
// number of the run.
#include <cstdint>
#include <vector>

#include "engine/data/dataset.h"

namespace plab {

// One data point drawn over the grid.
struct GridPoint {
    float x = 0, y = 0;
    int label = 0;
};

struct DecisionGrid {
    std::int64_t step = 0;  // the step after which the models were asked
    // The plane covered: the bounding box of the train and test points plus
    // 10% of its extent on each side.
    double x_min = 0, x_max = 1, y_min = 0, y_max = 1;
    int resolution = 0;  // cells per side
    int classes = 0;
    // Row-major, resolution x resolution cells, row 0 at y_min, column 0 at
    // x_min; a cell is asked about its centre (cell_centre).
    std::vector<std::uint8_t> amp;   // the mixed-precision model's predicted class
    std::vector<std::uint8_t> twin;  // the FP32 twin's; empty when the run has no twin
    std::vector<float> amp_confidence;   // the largest softmax probability per cell (amp)
    std::vector<float> twin_confidence;  // the same for the twin; empty without one
    std::vector<GridPoint> points;       // a sample of the test points
};

inline constexpr int kMaxGridPoints = 400;

// Whether a data set gets a grid: classification with 2 input features.
bool has_decision_grid(const Dataset& data);

// A grid with bounds, resolution, classes and the test-point sample set and
// no predictions yet. Needs has_decision_grid(data) and resolution >= 2.
DecisionGrid make_empty_grid(const Dataset& data, int resolution);

// The centre of cell (column, row), in data coordinates.
double cell_centre_x(const DecisionGrid& grid, int column);
double cell_centre_y(const DecisionGrid& grid, int row);

// Every cell's centre as a (resolution^2 x 2) row-major input batch, in the
// cells' order: what the models are asked about.
std::vector<float> grid_inputs(const DecisionGrid& grid);

}  // namespace plab
