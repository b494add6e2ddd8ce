#pragma once
// The claims' direct checks (engine/scenario/claims.h), for what no teaching
// scenario shows: format facts read from the format constants through the one
// cast routine, the lab's own recipe text, and one short run. Several claims
// share a check when they state (or misstate) the same fact.
#include "engine/scenario/claims.h"

namespace plab::claim_checks {

// FP16's smallest positive value is 2^-24 (a subnormal), not 2^-14 (the smallest normal).
Verdict fp16_smallest_positive(Backend& backend, const ScenarioProgress& progress);
// Where FP16 starts flushing to zero: 2^-25 and below; above it, up to 2^-24, values round up.
Verdict fp16_flush_threshold(Backend& backend, const ScenarioProgress& progress);
// Where FP16 overflows: 65504 is the largest value, 65520 the first that becomes Inf.
Verdict fp16_overflow_threshold(Backend& backend, const ScenarioProgress& progress);
// 1e-4 x 1e-4 in FP16 arithmetic is 0.
Verdict tiny_product_flushes(Backend& backend, const ScenarioProgress& progress);
// Range FP32 = BF16 > FP16; precision FP32 > FP16 > BF16.
Verdict range_and_precision_order(Backend& backend, const ScenarioProgress& progress);
// BF16 and FP16 are both 16 bits wide.
Verdict half_formats_same_width(Backend& backend, const ScenarioProgress& progress);
// The lab's tf32 recipe text says TF32 matmuls are opt-in in PyTorch.
Verdict tf32_recipe_says_opt_in(Backend& backend, const ScenarioProgress& progress);
// A loss scale far too large skips steps; the loss stays finite.
Verdict large_scale_skips_not_nan(Backend& backend, const ScenarioProgress& progress);

}  // namespace plab::claim_checks
