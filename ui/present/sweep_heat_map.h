#pragma once
// A sweep's cells as a heat map: one axis's values across, the other's (if
// any) down, each cell coloured by one measure, with every number of the cell
// on hover. Cells fill in as their runs finish, so the map is built from
// whatever runs have measures so far. The best cell is the one a person would
// pick: the best value of the measure among the cells that stayed under a
// share of skipped steps (a setting that wins by skipping a tenth of its
// updates is not one to copy).
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/sweep/run_measures.h"
#include "engine/sweep/sweep_grid.h"

namespace plab {

enum class SweepMetric { final_loss, test_acc, acc_gap, test_loss, skipped, grad_zeros, twin_flush };
inline constexpr SweepMetric kSweepMetrics[] = {SweepMetric::final_loss, SweepMetric::test_acc,
                                                SweepMetric::acc_gap,    SweepMetric::test_loss,
                                                SweepMetric::skipped,    SweepMetric::grad_zeros,
                                                SweepMetric::twin_flush};

// "final loss", "test accuracy", ...: what a chooser lists.
std::string_view sweep_metric_name(SweepMetric metric);

struct SweepCellView {
    bool pending = true;           // some run of the cell is still training
    std::optional<double> value;   // the measure's mean over the seeds; none while pending or unmeasured
    std::string text;              // what the cell shows: "0.0431", "97.5%", "…" while pending, "-" unmeasured
    double colour = 0;             // 0 worst .. 1 best on the measure's scale (0 for a non-finite value)
    bool best = false;
    std::string hover;             // the cell's settings and every measure, one per line
};

struct SweepHeatMap {
    std::string title;                    // "final loss (log scale, lower is better)"
    std::string row_field, column_field;  // row_field is "" with one axis
    std::vector<std::string> row_labels, column_labels;
    std::vector<SweepCellView> cells;     // row by row: rows x columns, the plan's cell order
    bool log_scale = false;
    std::string worst_text, best_text;    // the values at colour 0 and 1, for a legend
    std::optional<std::size_t> best;      // index into cells
    std::string best_line;                // the best cell in words, or why there is none
    std::size_t finished = 0;             // cells with every run done
};

struct SweepHeatChoice {
    SweepMetric metric = SweepMetric::final_loss;
    double max_skipped_percent = 5;  // the best cell skipped at most this share of steps, in every seed
};

// `runs` holds one entry per run of `plan`, in plan order: nullopt while the
// run trains. With more than two axes, the rows combine all but the last.
SweepHeatMap make_heat_map(const SweepPlan& plan, const std::vector<std::optional<RunMeasures>>& runs,
                           const SweepHeatChoice& choice);

}  // namespace plab
