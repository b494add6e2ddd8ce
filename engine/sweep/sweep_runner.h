#pragma once
// Trains a sweep's runs side by side: one run per thread, each on a backend
// of its own made as `plab run --backend` makes it. Runs share nothing, and a
// backend's numbers do not depend on the thread that drives it, so each run's
// records are those `plab run` writes for its settings and backend.
// On the GPU that is one run per CUDA stream, many streams at once on the one
// device: concurrent runs, not one batched kernel over runs.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/sweep/run_measures.h"
#include "engine/sweep/sweep_grid.h"
#include "engine/tensor/tensor.h"

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
    std::size_t threads = 0;  // 0: sweep_threads' default for the backend's device
    // Where every run trains: a --backend value (cpu|cuda|auto, make_run_backend),
    // checked before any run starts.
    std::string backend = "cpu";
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

// The threads run_sweep starts for `runs` runs on `device`: `requested`, or
// when 0 one per core (the CPU) or kCudaSweepStreams at least (a GPU), never
// more than the runs.
std::size_t sweep_threads(std::size_t runs, std::size_t requested, Device device);

// A CUDA run's thread launches a step and then waits for its stream, so the
// threads a core can keep busy are more than one; and the default preset's
// runs are small enough that one stream leaves most of the device idle. Four
// streams keep it working even on a host with fewer cores, and more cores
// than four give one stream each (each launch still needs a core).
inline constexpr std::size_t kCudaSweepStreams = 4;

}  // namespace plab
