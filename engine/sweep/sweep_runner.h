#pragma once
// Trains a sweep's runs side by side: one run per thread, each on a CPU
// backend of its own, as many threads as cores. Runs share nothing, and the
// CPU backend's numbers do not depend on the thread that computes them, so
// each run's records are those `plab run` writes for its settings.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "engine/sweep/run_measures.h"
#include "engine/sweep/sweep_grid.h"

namespace plab {

class Backend;
class Trainer;

// What a front end sees of each run (writing its records, say). The calls of
// one run come from one thread, in step order; different runs call at once
// from different threads, so a callback touches only its own run's state.
struct SweepObserver {
    std::function<void(std::size_t run, const Trainer&, const Backend&)> started;
    std::function<void(std::size_t run, const StepRecord&)> step;
    // The run's measures, as soon as it has them: a front end can show each
    // cell while the others still train.
    std::function<void(std::size_t run, const RunMeasures&)> finished;
};

struct SweepRunOptions {
    std::size_t threads = 0;  // 0: one per core this process may use
    SweepObserver observer;
    // On the calling thread, about ten times a second and once at the end:
    // the steps all runs have trained so far, and the runs finished.
    std::function<void(std::int64_t steps, std::size_t runs)> progress;
    // Asked with each progress report; true stops every run between two steps.
    std::function<bool()> stop;
};

// The measures of every run of `plan`, in plan order; nullopt when `stop`
// ended the sweep early. The first error a run throws (an out-of-memory, an
// observer's failed write) stops the other runs between steps and is
// rethrown here.
std::optional<std::vector<RunMeasures>> run_sweep(const SweepPlan& plan, const SweepRunOptions& options);

// The threads run_sweep starts for `runs` runs: `requested`, or one per core
// when 0, never more than the runs.
std::size_t sweep_threads(std::size_t runs, std::size_t requested);

}  // namespace plab
