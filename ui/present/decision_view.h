#pragma once
// View model of the decision-boundary panel: the class the mixed-precision
// model and its FP32 twin predict over the plane of a 2-D classification set
// (engine/train/decision_grid.h), side by side, and where they differ, with
// the test points drawn over them. Class indices only: the GUI maps them to
// its palette.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/train/decision_grid.h"
#include "engine/train/run_config.h"
#include "engine/train/run_log.h"

namespace plab {

// One map of cells, row-major, row 0 at the bottom of the plane (y_min).
struct DecisionMap {
    std::string title;                  // "AMP (amp-fp16) · step 1200"
    std::vector<std::uint8_t> classes;  // predicted class per cell
    std::vector<float> shade;           // 0 = no more sure than chance (1/classes) .. 1 = certain
};

// A data point in unit coordinates of the plane: u from x_min (0) to x_max
// (1), v from y_min (0) to y_max (1, the top).
struct DecisionPoint {
    double u = 0, v = 0;
    int label = 0;
};

struct DecisionView {
    std::int64_t step = 0;
    int resolution = 0;  // cells per side
    int classes = 0;
    DecisionMap amp;
    bool has_twin = false;
    DecisionMap twin;                   // empty without a twin
    std::string difference_title;       // "Difference · step 1200"
    std::vector<std::uint8_t> differ;   // 1 where the two classes differ; empty without a twin
    std::int64_t differing_cells = 0;
    double disagree_percent = 0;        // of all cells
    std::string summary;                // "AMP and twin disagree on 1.7% of the plane (70 of 4096 cells)"
    std::vector<DecisionPoint> points;
};

// The grid of the latest record in the log that has one (taken every
// TrainerOptions::boundary_every steps); null when none of the recent
// records has one.
std::shared_ptr<const DecisionGrid> latest_boundary(const RunLogView& log);

// Why a run shows no decision boundary, or "" when `grid` can be drawn:
// the data set is not 2-D classification, grids are off (boundary_every 0),
// or none has been taken yet (grid null).
std::string decision_placeholder(const RunConfig& config, const DecisionGrid* grid, int boundary_every);

// `recipe` names the mixed-precision side in its title.
DecisionView make_decision_view(const DecisionGrid& grid, Recipe recipe);

// "1.7%", "0%", "< 0.1%" (some but fewer than 0.05%), "100%": the share of
// differing cells, one decimal.
std::string percent_text(std::int64_t part, std::int64_t whole);

}  // namespace plab
