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

// f'(x)
PLAB_HD float activation_slope(Activation a, float x) {
    switch (a) {
        case Activation::identity: return 1.0f;
        case Activation::relu: return x > 0.0f ? 1.0f : 0.0f;
        case Activation::tanh: {
            const float t = tanhf(x);
            return 1.0f - t * t;
        }
        case Activation::gelu: {
            const float cdf = 0.5f * (1.0f + erff(x * 0.70710678118654752f));
            const float pdf = 0.39894228040143268f * portable_exp(-0.5f * x * x);
            return cdf + x * pdf;
        }
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
