#pragma once
// The loss scaler replayed on a recorded run under other settings: at each
// step the scale the candidate settings reach, whether the step would
// overflow at that scale, and what the scaler then does (LossScaler's own
// rule, the trainer's).
//
// A step overflows under a candidate scale S when
//   - its unscaled gradient amax times S reaches the gradient format's
//     overflow boundary ("scale"), or the record overflowed at a scale no
//     larger than S (an overflow recurs at any larger scale; "scale" too), or
//   - the record saw non-finite values that the loss scale does not explain
//     ("unscaled": a NaN or Inf in the forward pass, a non-finite loss, or an
//     overflow at a scale of 1 or less).
// Replaying a record's own settings therefore gives its own trajectory: a
// clean step's scaled gradients were finite, so amax * S stayed below the
// boundary, and an overflowing step overflows again at the same scale.
#include <cstdint>
#include <vector>

#include "engine/amp/loss_scaler.h"
#include "engine/telemetry/tensor_stats.h"

namespace plab {

// What a record says about one step.
struct RecordedScaleStep {
    std::int64_t step = 0;
    float scale = 1;          // the scale the step ran with
    bool found_inf = false;   // its verdict at that scale
    float grad_amax = 0;      // max |unscaled gradient| over the finite values the record measured
    bool unexplained = false; // non-finite values the loss scale does not explain
};

enum class OverflowKind { none, scale, unscaled };
const char* overflow_kind_name(OverflowKind kind);  // "none", "scale", "unscaled"

struct ReplayedStep {
    std::int64_t step = 0;
    ScalerEvent event;  // scale_before is the scale the step would run with
    OverflowKind overflow = OverflowKind::none;
};

// `overflow_at`: the gradient format's overflow boundary, as a magnitude of
// the scaled value (65520 for FP16, reached inclusively: values from there
// round to Inf); `inclusive` says whether the boundary itself overflows.
std::vector<ReplayedStep> replay_scaler(const std::vector<RecordedScaleStep>& steps, const ScalerConfig& candidate,
                                        double overflow_at, bool inclusive);

// Of the finite non-zero values a log2 histogram of unscaled gradients
// counts, the shares that times `scale` would flush to zero (below
// `nonzero_at`) or land subnormal (below `normal_at`), at the histogram's
// resolution: a bin counts where its geometric middle falls, so the shares
// are exact when no bin straddles a boundary (a power-of-two scale and a
// format whose boundaries sit on binade edges, as FP16's and BF16's nearly do).
struct FlushShares {
    double flush = 0;
    double subnormal = 0;
    std::int64_t values = 0;  // the finite non-zero values counted
};
FlushShares scaled_flush_shares(const Log2Histogram& h, double scale, double nonzero_at, double normal_at);

}  // namespace plab
