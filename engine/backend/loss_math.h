#pragma once
// The losses' arithmetic off autocast's FP32 list, one value at a time: the
// definition both backends follow (on the list they keep their FP32 code).
// Every step is rounded to the compute format (compute_arithmetic.h), each
// partial sum of a reduction included, summed in index order. That is where
// FP16 fails: a batch's per-row losses or squared errors summed past 65504
// make the loss Inf, though every term and the mean itself would fit.
#include "engine/backend/compute_arithmetic.h"
#include "engine/common/host_device.h"
#include "engine/numeric/portable_math.h"

namespace plab {

// The next partial sum of a reduction that runs in index order.
template <typename R>
PLAB_HD float loss_add(R r, float sum, float term) {
    return r(sum + term);
}

// A logit less its row's maximum: the softmax's exponent.
template <typename R>
PLAB_HD float softmax_shifted(R r, float z, float top) {
    return r(z - top);
}

// exp of a shifted logit: the terms of the row's normaliser.
template <typename R>
PLAB_HD float softmax_exp(R r, float shifted) {
    return r(portable_exp(shifted));
}

// log of the row's normaliser.
template <typename R>
PLAB_HD float softmax_log_sum(R r, float sum) {
    return r(portable_log(sum));
}

// A probability: exp(shifted - log_sum).
template <typename R>
PLAB_HD float softmax_prob(R r, float shifted, float log_sum) {
    return r(portable_exp(r(shifted - log_sum)));
}

// A row's cross-entropy, -log p[label] = log_sum - shifted[label].
template <typename R>
PLAB_HD float cross_entropy_term(R r, float log_sum, float shifted_label) {
    return r(log_sum - shifted_label);
}

// A squared error (pred - target)^2.
template <typename R>
PLAB_HD float squared_error(R r, float pred, float target) {
    const float d = r(pred - target);
    return r(d * d);
}

// The mean of a reduction: total / count (0 for none).
template <typename R>
PLAB_HD float loss_mean(R r, float total, float count) {
    return count > 0 ? r(total / count) : 0.0f;
}

}  // namespace plab
