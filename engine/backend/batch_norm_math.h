#pragma once
// BatchNorm's arithmetic, one value at a time, in a compute format: the
// definition both backends follow. On autocast's FP32 list the compute format
// is FP32; off it every step, each partial sum of a reduction included, is an
// FP32 operation rounded to the compute format, as LayerNorm's are
// (layer_norm_math.h, whose rstd, xhat, output and input gradient it shares).
//
// A column's statistics come from one pass over the batch, its sum and its sum
// of squares side by side, as fused batch-norm kernels take them (a feature's
// values are strided across the whole tensor, and a second sweep would read it
// all again): var = mean(x^2) - mean^2. That is where FP16 fails: a column
// around 300 has x^2 beyond 65504, the sum of squares and mean^2 are Inf, the
// variance Inf - Inf = NaN, and so is every output of the column.
#include "engine/backend/layer_norm_math.h"
#include "engine/common/host_device.h"

namespace plab {

// The biased variance from the column's mean of squares and mean. Rounding
// can take it below 0 on a nearly constant column, where it is 0; a NaN stays.
template <typename R>
PLAB_HD float norm_variance(R r, float mean_of_squares, float mean) {
    const float var = r(mean_of_squares - r(mean * mean));
    return var < 0.0f ? 0.0f : var;
}

// var * n / (n - 1): the unbiased variance, which the running variance takes.
template <typename R>
PLAB_HD float norm_unbiased_variance(R r, float var, float n) {
    return r(r(var * n) / (n - 1.0f));
}

// momentum * batch + (1 - momentum) * running, PyTorch's update of a running
// statistic. Always FP32: the running statistics are FP32 buffers, as a
// model's buffers are under autocast, whatever format computed the batch's.
PLAB_HD float running_blend(float running, float batch, float momentum) {
    return momentum * batch + (1.0f - momentum) * running;
}

}  // namespace plab
