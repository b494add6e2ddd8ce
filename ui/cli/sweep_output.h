#pragma once
// What plab sweep prints: a table with one row per cell (its values, then
// each measure's mean over the seeds and its [min..max]), or the same as one
// JSON object with every run's own measures.
#include <string>
#include <vector>

#include "engine/sweep/run_measures.h"
#include "engine/sweep/sweep_grid.h"

namespace plab {

// `measures` holds one entry per run of `plan`, in plan order.
std::string sweep_table(const SweepPlan& plan, const std::vector<RunMeasures>& measures);
std::string sweep_json(const SweepPlan& plan, const std::vector<RunMeasures>& measures);

}  // namespace plab
