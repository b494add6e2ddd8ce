#pragma once
// The trainer's recorded steps (backend/step_graph.h), one per set of the
// arguments a recorded step holds fixed: the run's config but for the
// numbers it reads from the backend at each replay (the optimizer's and the
// scaler's parameters: a live edit of those needs no new recording), the
// loss scale (the backward and the unscaled telemetry take it as a number),
// whether the step takes histograms, and whether the twin is on. A step with
// the same key replays its graph; the first step with a new key records one.
//
// Every graph goes stale when the backend allocates (a tensor may have
// moved): the cache then starts afresh. A step the backend refuses to record
// (CaptureRefused: a host read, as clip_scaled's norm or an allocation on
// the first step after a reallocation) runs op by op, and is not tried
// again for that key until something is allocated.
#include <cstdint>
#include <functional>
#include <memory>

#include "engine/backend/backend.h"
#include "engine/common/recently_used.h"
#include "engine/train/run_config.h"

namespace plab {

struct StepGraphKey {
    RunConfig config;  // recorded_part(): the settings kept on the backend blanked
    std::uint32_t scale_bits = 0;
    bool histograms = false;
    bool twin = false;

    bool operator==(const StepGraphKey&) const = default;
};
StepGraphKey step_graph_key(const RunConfig& config, float scale, bool histograms, bool twin);
// The config with the numbers a step reads from the backend blanked; whether
// SGD keeps a momentum buffer and whether there is a clip stay (they change
// the step's ops).
RunConfig recorded_part(RunConfig config);

// How the steps ran so far: replayed from a graph, or op by op.
struct StepGraphCounts {
    std::int64_t recorded = 0;  // graphs recorded
    std::int64_t replayed = 0;  // steps that ran from a graph (the recording step included)
    std::int64_t refused = 0;   // recordings the backend refused
};

class StepGraphCache {
public:
    // Runs the step: ops() recorded into a graph for key and replayed, or
    // (no graph for this backend, or refused) called as it is.
    void run(Backend& backend, const StepGraphKey& key, const std::function<void()>& ops);
    const StepGraphCounts& counts() const { return counts_; }

private:
    // A dynamic scaler moves between a few scales for long stretches; more
    // than this many keys in turn is a run whose scale keeps moving (then
    // recording costs more than it saves, and graphs are dropped oldest first).
    static constexpr std::size_t kMaxGraphs = 4;
    // The graph of ops, or null when the backend cannot record or refused.
    std::unique_ptr<StepGraph> record(Backend& backend, const std::function<void()>& ops);

    RecentlyUsed<StepGraphKey, std::unique_ptr<StepGraph>, kMaxGraphs> graphs_;  // null: refused
    std::uint64_t allocations_ = 0;  // the backend's when the graphs were made
    StepGraphCounts counts_;
};

}  // namespace plab
