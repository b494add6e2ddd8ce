#include "engine/train/decision_grid.h"

#include <algorithm>
#include <limits>

#include "engine/common/error.h"

namespace plab {

namespace {

struct Box {
    double x_min = std::numeric_limits<double>::infinity(), x_max = -x_min;
    double y_min = x_min, y_max = -x_min;

    void add(const Split& split) {
        for (std::size_t i = 0; i + 1 < split.inputs.size(); i += 2) {
            x_min = std::min(x_min, static_cast<double>(split.inputs[i]));
            x_max = std::max(x_max, static_cast<double>(split.inputs[i]));
            y_min = std::min(y_min, static_cast<double>(split.inputs[i + 1]));
            y_max = std::max(y_max, static_cast<double>(split.inputs[i + 1]));
        }
    }
};

// 10% of the extent on each side; a flat extent (all points on a line) gets
// a unit margin so the plane never collapses.
void widen(double& lo, double& hi) {
    const double margin = hi > lo ? 0.1 * (hi - lo) : 1.0;
    lo -= margin;
    hi += margin;
}

// Every k-th test row, k chosen so that at most kMaxGridPoints are kept.
std::vector<GridPoint> sample_points(const Split& test) {
    const int stride = std::max(1, (test.rows + kMaxGridPoints - 1) / kMaxGridPoints);
    std::vector<GridPoint> out;
    for (int i = 0; i < test.rows; i += stride) {
        const auto u = static_cast<std::size_t>(i);
        out.push_back({test.inputs[2 * u], test.inputs[2 * u + 1], test.labels[u]});
    }
    return out;
}

}  // namespace

bool has_decision_grid(const Dataset& data) { return data.num_classes > 0 && data.input_dim == 2; }

DecisionGrid make_empty_grid(const Dataset& data, int resolution) {
    if (!has_decision_grid(data)) throw Error("decision grid: the data set is not 2-D classification");
    if (resolution < 2) throw Error("decision grid: resolution " + std::to_string(resolution) + " is below 2");
    Box box;
    box.add(data.train);
    box.add(data.test);
    DecisionGrid g;
    g.x_min = box.x_min;
    g.x_max = box.x_max;
    g.y_min = box.y_min;
    g.y_max = box.y_max;
    widen(g.x_min, g.x_max);
    widen(g.y_min, g.y_max);
    g.resolution = resolution;
    g.classes = data.num_classes;
    g.points = sample_points(data.test);
    return g;
}

double cell_centre_x(const DecisionGrid& grid, int column) {
    return grid.x_min + (column + 0.5) * (grid.x_max - grid.x_min) / grid.resolution;
}

double cell_centre_y(const DecisionGrid& grid, int row) {
    return grid.y_min + (row + 0.5) * (grid.y_max - grid.y_min) / grid.resolution;
}

std::vector<float> grid_inputs(const DecisionGrid& grid) {
    const auto n = static_cast<std::size_t>(grid.resolution);
    std::vector<float> out(2 * n * n);
    for (int row = 0; row < grid.resolution; ++row)
        for (int column = 0; column < grid.resolution; ++column) {
            const std::size_t cell = static_cast<std::size_t>(row) * n + static_cast<std::size_t>(column);
            out[2 * cell] = static_cast<float>(cell_centre_x(grid, column));
            out[2 * cell + 1] = static_cast<float>(cell_centre_y(grid, row));
        }
    return out;
}

}  // namespace plab
