#pragma once
// View model of the NaN / overflow diagnosis panel: the first step whose
// gradients or loss were not finite, said in words (which phase, which layer,
// at what loss scale, what the scaler did about it), and remedies to try,
// each a list of live edits to apply on a fork from the last finite step so
// that the run and its remedy stay side by side.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/train/run_config.h"
#include "engine/train/run_log.h"
#include "engine/train/session.h"

namespace plab {

struct Remedy {
    std::string label;                 // "Lower the loss scale to 2^12"
    std::string why;                   // one sentence
    std::vector<std::string> changes;  // live edits for Session::fork, e.g. "scaler.scale=4096"
};

struct NanDiagnosis {
    bool found = false;
    std::int64_t step = 0;              // the first non-finite step
    std::int64_t last_finite_step = 0;  // where a fork starts: the step before it
    std::string headline;               // "Step 261: gradient overflow in fc1 (backward) at loss scale 2^16"
    std::string detail;                 // what the scaler did, what the tensors held, in sentences
    std::vector<Remedy> remedies;
    // The records name layers, not ops. A trace of the step (Session::trace)
    // names the op too; `traced` says what it found, and `trace_wanted` asks
    // the view to request one (no trace of this step is at hand yet).
    std::string traced;
    bool trace_wanted = false;
    // The scaler coped: the step was an overflow it skipped, with a finite
    // loss (a dynamic scaler's sawtooth backoff), not a NaN or Inf loose in
    // the run. When the step has left the recent records: the scaler skips
    // overflows (kind is not none) and no loss in the history was non-finite.
    bool handled = false;
};

// `layer_names` name the entries of StepRecord::layers ("fc1", ...). When the
// first non-finite step has left the recent records, the diagnosis says so
// and offers no remedies (the step's tensors are gone). With a trace of that
// step, the headline names the op that made the first Inf or NaN and the
// "keep a layer in FP32" remedy names the traced layer (none when the op
// belongs to no Linear layer, e.g. the attention block's softmax).
NanDiagnosis diagnose_first_nonfinite(const RunLogView& log, const RunConfig& config,
                                      const std::vector<std::string>& layer_names, const StepTrace* trace = nullptr);

}  // namespace plab
