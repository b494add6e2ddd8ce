#pragma once
// LayerNorm's arithmetic, one value at a time, in a compute format: the
// definition both backends follow. On autocast's FP32 list the compute format
// is FP32 and every step is plain FP32 arithmetic. Off the list it is the
// format the op's neighbours compute in (FP16, BF16), and every step, each
// partial sum of a reduction included, is an FP32 operation rounded to that
// format, as a kernel that keeps its intermediates in FP16 gives. That is
// where FP16 fails: (x - mean)^2 beyond 65504 is Inf, the variance is Inf,
// rstd is 0 and the row's output collapses to beta; long sums stall once
// their ULP passes the addend.
#include <cmath>

#include "engine/backend/compute_arithmetic.h"
#include "engine/common/host_device.h"

namespace plab {

// The next partial sum of a reduction that runs in index order.
template <typename R>
PLAB_HD float norm_add(R r, float sum, float term) {
    return r(sum + term);
}

// x - mean, and its square: the terms of the variance's sum.
template <typename R>
PLAB_HD float norm_centred(R r, float x, float mean) {
    return r(x - mean);
}
template <typename R>
PLAB_HD float norm_square(R r, float centred) {
    return r(centred * centred);
}

// sum / n: the mean of a row, or of a row's gradient terms.
template <typename R>
PLAB_HD float norm_mean(R r, float sum, float n) {
    return r(sum / n);
}

// 1 / sqrt(var + eps).
template <typename R>
PLAB_HD float norm_rstd_of_variance(R r, float var, float eps) {
    return r(1.0f / r(sqrtf(r(var + eps))));
}

// The same from the sum of squares (the biased variance).
template <typename R>
PLAB_HD float norm_rstd(R r, float squares, float n, float eps) {
    return norm_rstd_of_variance(r, norm_mean(r, squares, n), eps);
}

// xhat = (x - mean) * rstd.
template <typename R>
PLAB_HD float norm_xhat(R r, float x, float mean, float rstd) {
    return r(norm_centred(r, x, mean) * rstd);
}

// y = xhat * gamma + beta.
template <typename R>
PLAB_HD float norm_output(R r, float xhat, float gamma, float beta) {
    return r(r(xhat * gamma) + beta);
}

// dx = rstd * (g - mean(g) - xhat * mean(g * xhat)), with g = dy * gamma.
template <typename R>
PLAB_HD float norm_grad_input(R r, float rstd, float g, float mean_g, float xhat, float mean_g_xhat) {
    return r(rstd * r(r(g - mean_g) - r(xhat * mean_g_xhat)));
}

}  // namespace plab
