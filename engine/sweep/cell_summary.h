#pragma once
// A sweep cell's runs (one per seed) summed up measure by measure: the mean
// and the range (min and max) over the seeds. The range rather than a
// standard deviation: with the few seeds a sweep runs, the extremes are
// what a reader can check against the runs, and they say whether any seed
// misbehaved.
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/sweep/run_measures.h"

namespace plab {

struct Spread {
    double mean = 0, min = 0, max = 0;
    int runs = 0;  // the runs that had the measure
};

struct CellSummary {
    int runs = 0;
    Spread skipped, floor_steps, ceiling_steps, grad_zero_share, final_loss;
    // Over the runs that measured them (empty when none did).
    std::optional<Spread> acc, acc_gap, test_loss, first_growth_step, twin_flush_share;
};

CellSummary summarise_cell(const std::vector<RunMeasures>& runs);

}  // namespace plab
