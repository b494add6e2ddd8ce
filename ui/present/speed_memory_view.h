#pragma once
// View model of the Speed & memory panel: first what a framework (PyTorch,
// eager) holds for the run's model under every recipe
// (engine/train/framework_ledger_table.h), which any model the lab trains
// has; then the lab's own buffers under FP32, TF32 and the AMP recipes
// (recipe_comparison_view.h), which the lab counts for its MLPs only, and
// otherwise a line saying why not.
#include <optional>
#include <string>
#include <vector>

#include "engine/train/run_config.h"
#include "ui/present/recipe_comparison_view.h"

namespace plab {

struct LedgerTableView {
    std::string title;                           // "the preset's GPT (...), 209,472 parameters, adamw"
    std::vector<std::string> columns;            // "recipe", the held classes, "total", "vs fp32"
    std::vector<std::vector<std::string>> rows;  // one per recipe; a cell's formats on lines of their own
    std::string note;                            // what is counted and what is not
};

struct SpeedMemoryView {
    LedgerTableView framework;
    std::optional<RecipeComparisonView> lab;
    std::string no_lab;  // why there is no lab table ("" when there is)
};

// Throws plab::Error when the model's shape cannot be taken (a data set that does not generate).
SpeedMemoryView speed_memory_view(const RunConfig& config);

}  // namespace plab
