#pragma once
// Hand-made StepRecords for the presenter tests: a step that used loss scale
// 2^k and left it at 2^k_after, and the scaler's events on top of one.
#include <cmath>
#include <cstdint>

#include "engine/train/step_record.h"

namespace plab::test {

inline float pow2(int k) { return std::ldexp(1.0f, k); }

inline StepRecord scaled_step(std::int64_t step, int k, int k_after, float loss) {
    StepRecord r;
    r.step = step;
    r.loss = loss;
    r.scale = pow2(k);
    r.scale_after = pow2(k_after);
    return r;
}

// An overflowing step (found_inf), skipped or not, with a backoff or not.
inline StepRecord overflow_step(std::int64_t step, int k, bool skipped, bool backoff, float loss) {
    StepRecord r = scaled_step(step, k, backoff ? k - 1 : k, loss);
    r.found_inf = true;
    r.skipped = skipped;
    r.backoff = backoff;
    return r;
}

}  // namespace plab::test
