#pragma once
// What the panels that need a run training here say on a recorded run
// (SessionSnapshot::record), in the same words in both workbenches.
#include <string>
#include <vector>

#include "engine/train/session.h"

namespace plab {

enum class RecordGap {
    decision,   // the decision boundary: drawn from the lab's own model while it trains
    twin,       // the FP32 twin: trained in lock-step by the lab only
    speed,      // speed and memory of a PyTorch model the lab does not build
    remedies,   // the NaN panel's remedies: forks of a run training here
    samples,    // text samples: written by the lab's own language model as it trains
};

std::string record_gap_text(RecordGap gap, const RecordOrigin& origin);

// The status line of a recorded run: "run.jsonl · plab_probe 0.1.0, torch
// 2.4.0 on PyTorch 2.4.0 (cuda) · 300 steps recorded · loss 0.0123 ·
// what-if: scaler.init_scale=1024". `snapshot.record` must be set.
std::string record_status_text(const SessionSnapshot& snapshot);

// The what-if's scaler edits after a person edits one more setting: an edit
// of a setting already edited replaces it, so each setting appears once.
// A live edit of the current scale ("scaler.scale=X", the live view's x2
// and /2 keys) becomes the what-if's init_scale: a record has no current
// scale to set, only the replay's start.
std::vector<std::string> what_if_with(std::vector<std::string> edits, const std::string& assignment);

}  // namespace plab
