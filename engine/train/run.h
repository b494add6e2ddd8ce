#pragma once
// A training run as the Session drives it (docs/DESIGN.md, "Data flow"). The
// Trainer implements it; tests use a fake. The Session calls every method
// from its one worker thread, so an implementation needs no locking.
//
// Determinism is part of the contract: two runs made by one factory from one
// config, given the same live edits at the same step boundaries, produce
// identical StepRecords. Forks and exact replays rely on it.
#include <cstdint>
#include <functional>
#include <memory>
#include <string_view>

#include "engine/train/nan_tracer.h"
#include "engine/train/run_config.h"
#include "engine/train/step_record.h"

namespace plab {

class Run {
public:
    virtual ~Run() = default;

    // One optimizer step; the record's `step` is steps_done() after it.
    // Throws plab::Error on failure.
    virtual StepRecord step() = 0;
    virtual std::int64_t steps_done() const = 0;
    // The current config, live edits included.
    virtual const RunConfig& config() const = 0;
    // Live edit at a step boundary, e.g. "scaler.growth_interval=100".
    // Throws plab::Error (naming the field, the value and what is allowed);
    // nothing changes then.
    virtual void apply(std::string_view assignment) = 0;
    // An independent exact copy of the current state (checkpoints, forks):
    // stepping the copy and the original alike gives identical records.
    virtual std::unique_ptr<Run> clone() const = 0;
    // One step with every op's output checked (NanTracer): the first
    // non-finite value it met, if any. Its record is the step() record.
    // A run that cannot trace steps as usual and finds nothing.
    virtual std::optional<NanReport> trace_step() {
        (void)step();
        return std::nullopt;
    }
};

// A fresh run at step 0. Throws plab::Error on an invalid config.
using RunFactory = std::function<std::unique_ptr<Run>(const RunConfig&)>;

}  // namespace plab
