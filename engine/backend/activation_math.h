#pragma once
// The activation functions and their derivatives in FP32, one value at a
// time: the definition both backends follow (GELU is the exact erf form, as
// torch.nn.GELU() by default).
#include <cmath>

#include "engine/backend/activation.h"
#include "engine/common/host_device.h"
#include "engine/numeric/portable_math.h"

namespace plab {

PLAB_HD float activate(Activation a, float x) {
    switch (a) {
        case Activation::identity: return x;
        // !(x <= 0) keeps a NaN, as torch.relu does (x > 0 ? x : 0 would turn
        // it into 0 and hide a forward overflow from the loss).
        case Activation::relu: return !(x <= 0.0f) ? x : 0.0f;
        case Activation::tanh: return tanhf(x);
        case Activation::gelu: return 0.5f * x * (1.0f + erff(x * 0.70710678118654752f));
    }
    return x;
}

// GELU's slope in two parts, so that the CPU can take the exps of a whole
// array at once (portable_exp_array.h): Phi(x) + x phi(x), with phi's
// e^(-x^2/2) given as `e` = portable_exp(gelu_exp_argument(x)).
PLAB_HD float gelu_exp_argument(float x) { return -0.5f * x * x; }
PLAB_HD float gelu_slope(float x, float e) {
    const float cdf = 0.5f * (1.0f + erff(x * 0.70710678118654752f));
    const float pdf = 0.39894228040143268f * e;
    return cdf + x * pdf;
}

// f'(x)
PLAB_HD float activation_slope(Activation a, float x) {
    switch (a) {
        case Activation::identity: return 1.0f;
        case Activation::relu: return x > 0.0f ? 1.0f : 0.0f;
        case Activation::tanh: {
            const float t = tanhf(x);
            return 1.0f - t * t;
        }
        case Activation::gelu: return gelu_slope(x, portable_exp(gelu_exp_argument(x)));
    }
    return 1.0f;
}

// dL/dx from dL/dy = dy. ReLU gives +0 where x <= 0 and passes dy elsewhere
// (a NaN x too), as PyTorch's threshold_backward does: a NaN or Inf dy where
// x <= 0 does not leak through as NaN. The select also vectorises where a
// multiply by a 0/1 slope compiled to a mispredicted branch.
PLAB_HD float activation_grad(Activation a, float x, float dy) {
    if (a == Activation::relu) return !(x <= 0.0f) ? dy : 0.0f;
    return dy * activation_slope(a, x);
}

}  // namespace plab
