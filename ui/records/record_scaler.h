#pragma once
// What a run record says about its loss scaler, read for a what-if replay
// (engine/amp/scaler_replay.h): its own settings, the format its gradients
// were held in, and each step's scale, verdict and gradient amax. Shared by
// `plab replay` and the workbenches' replay overlay.
#include <string>
#include <vector>

#include "engine/amp/scaler_replay.h"
#include "engine/numeric/format.h"
#include "engine/train/run_config.h"
#include "ui/records/run_reader.h"

namespace plab {

// The record's own scaler settings: its config's "scaler" object over the
// lab's defaults (a PyTorch record holds little else). plab::Error naming
// `label` when the config has none.
ScalerConfig recorded_scaler_config(const RecordedRun& run, const std::string& label);

// The format the record's gradients are held in: its recipe's (BF16 for
// amp-bf16 and bf16-pure, E5M2 for fp8), else FP16, as for a PyTorch record
// (GradScaler's format).
FormatId recorded_gradient_format(const RecordedRun& run);

// Each step's scale, verdict and unscaled gradient amax, with the overflows
// the scale does not explain (an overflow at scale 1 or below, a non-finite
// loss, a NaN the record places in the forward pass). plab::Error naming
// the step when the record has no gradient statistics for it.
std::vector<RecordedScaleStep> recorded_scale_steps(const RecordedRun& run, const std::string& label);

}  // namespace plab
