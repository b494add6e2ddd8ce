#pragma once
// View model of the Speed & memory panel and of `plab bench --compare-recipes`:
// one row per recipe with its bytes by tensor class (native storage widths,
// memory_ledger.h), its total against FP32's, and where a GPU timed it the
// step time and test accuracy; then the seeds' claim next to what the
// figures say, and what the times need when there are none.
#include <string>
#include <vector>

#include "engine/train/recipe_comparison.h"

namespace plab {

struct RecipeComparisonView {
    std::string title;                          // "2-4096-4096-4096-4096-3 MLP, batch 8192, AdamW"
    std::vector<std::string> columns;           // "recipe", "weights", ..., "total", "vs FP32", "step", "accuracy"
    std::vector<std::vector<std::string>> rows; // one per recipe, cells as columns
    std::string claim;                          // the seeds' words and the ratios measured here
    std::string times;                          // where the times come from, or why there are none
    std::string storage;                        // native widths against today's FP32 arrays
};

// `device`: the timing backend's name, or "" when nothing was timed; then
// `why_no_times` says why ("this machine has no CUDA device").
RecipeComparisonView recipe_comparison_view(const std::vector<RecipeFigures>& figures, const RunConfig& base,
                                            const std::string& device, const std::string& why_no_times);

// The view as aligned text lines (the CLI prints them).
std::vector<std::string> recipe_comparison_lines(const RecipeComparisonView& view);

}  // namespace plab
