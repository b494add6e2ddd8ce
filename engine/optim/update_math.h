#pragma once
// The optimizer update rules, one element at a time, in FP32: the definition
// every backend follows (the CPU ops call it; a GPU kernel can include it,
// PLAB_HD). Each line is one PyTorch tensor op, in PyTorch's order, with its
// own FP32 rounding and no fused multiply-add (PyTorch's vectorised CPU
// kernels fuse add(alpha=) and lerp with FMA; the lab keeps every product
// rounded so that both backends agree bit for bit; compile device code with
// --fmad=false or the kernels will differ by an ULP).
#include <cmath>

#include "engine/backend/update_step.h"
#include "engine/common/host_device.h"

namespace plab {

// --- SGD: torch.optim.SGD, dampening 0, nesterov off -----------------------

// Each rule is written once for an FP32 number type T: float itself, or on
// the CPU SoftFp32 (soft_fp32.h) for elements near the subnormal range,
// which gives the same bits without the FPU's slow subnormal path.
PLAB_HD float sqrt_of(float x) { return sqrtf(x); }

// grad = grad.add(param, alpha=weight_decay), skipped when weight_decay == 0.
template <typename T>
PLAB_HD T sgd_decayed_grad(T w, T g, float weight_decay) {
    return weight_decay != 0.0f ? g + T(weight_decay) * w : g;
}
// buf.mul_(momentum).add_(grad). PyTorch's first step clones grad into the
// buffer; a zero buffer gives the same: momentum * 0 + grad == grad.
template <typename T>
PLAB_HD T sgd_velocity(T velocity, T grad, float momentum) {
    return T(momentum) * velocity + grad;
}
// param.add_(grad, alpha=-lr): w - lr * direction.
template <typename T>
PLAB_HD T sgd_apply(T w, T direction, float lr) {
    return w - T(lr) * direction;
}

// --- AdamW: torch.optim.AdamW, amsgrad off ----------------------------------

// The per-step scalars. PyTorch computes them on the host in Python floats
// (double) and each enters its tensor op rounded once to FP32; so here.
struct AdamWScalars {
    float decay = 1.0f;                  // 1 - lr * weight_decay
    float lerp_weight = 0.1f;            // 1 - beta1
    float beta2 = 0.999f;
    float one_minus_beta2 = 0.001f;
    float step_size = 1e-3f;             // lr / (1 - beta1^step)
    float bias_correction2_sqrt = 1.0f;  // (1 - beta2^step)^0.5
    float eps = 1e-8f;
};

// The scalars that do not depend on the step t (step_size and
// bias_correction2_sqrt keep their defaults). Double products and sums are
// correctly rounded on a GPU too (compiled without FMA), so a device that
// keeps the settings computes these from them bit for bit.
PLAB_HD AdamWScalars adamw_fixed_scalars(const AdamWStep& s) {
    AdamWScalars k;
    k.decay = static_cast<float>(1.0 - static_cast<double>(s.lr) * static_cast<double>(s.weight_decay));
    k.lerp_weight = static_cast<float>(1.0 - static_cast<double>(s.beta1));
    k.beta2 = s.beta2;
    k.one_minus_beta2 = static_cast<float>(1.0 - static_cast<double>(s.beta2));
    k.eps = s.eps;
    return k;
}

// All of step s.step's scalars (the host's pow: a device reads the
// t-dependent two from adamw_table.h's rows instead).
inline AdamWScalars adamw_scalars(const AdamWStep& s) {
    const double lr = s.lr, beta1 = s.beta1, beta2 = s.beta2, step = s.step;
    AdamWScalars k = adamw_fixed_scalars(s);
    k.step_size = static_cast<float>(lr / (1.0 - std::pow(beta1, step)));
    k.bias_correction2_sqrt = static_cast<float>(std::sqrt(1.0 - std::pow(beta2, step)));
    return k;
}

// --- AdamW on a device that knows t only as a count it keeps --------------
// The t-dependent scalars cannot be recomputed there bit for bit (the host's
// pow is not the device's), so the host tabulates them (adamw_table.h) and
// the device reads row t - 1, or the last row past the table's end.
PLAB_HD int adamw_table_row(float step_count, int rows) {
    const float t = step_count + 1.0f;
    return t < static_cast<float>(rows) ? static_cast<int>(t) - 1 : rows - 1;
}
PLAB_HD void store_adamw_row(const AdamWScalars& k, float* row) {
    row[0] = k.step_size;
    row[1] = k.bias_correction2_sqrt;
}
PLAB_HD void load_adamw_row(const float* row, AdamWScalars& k) {
    k.step_size = row[0];
    k.bias_correction2_sqrt = row[1];
}

// --- global-norm clipping: torch.nn.utils.clip_grad_norm_ ------------------

// coef = max_norm / (total_norm + 1e-6) in FP32; the gradients are
// multiplied by it only when it is < 1 (PyTorch multiplies by min(coef, 1):
// by 1 nothing changes). A NaN norm gives a NaN coefficient: no clip.
PLAB_HD float clip_coefficient(float max_norm, float total_norm) { return max_norm / (total_norm + 1e-6f); }
PLAB_HD bool clip_bites(float coef) { return coef < 1.0f; }

// torch.lerp (ATen's scalar form): exact at both ends, and the side nearer
// the weight is the base.
template <typename T>
PLAB_HD T pytorch_lerp(T start, T end, float weight) {
    return fabsf(weight) < 0.5f ? start + T(weight) * (end - start) : end - (end - start) * T(1.0f - weight);
}

// One element of PyTorch's _single_tensor_adam with decoupled weight decay,
// in its order:
//   param.mul_(1 - lr * weight_decay)
//   exp_avg.lerp_(grad, 1 - beta1)
//   exp_avg_sq.mul_(beta2).addcmul_(grad, grad, value=1 - beta2)
//   denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
//   param.addcdiv_(exp_avg, denom, value=-step_size)
// Returns the new weight before rounding to the weight's dtype.
template <typename T>
PLAB_HD T adamw_element(T w, T g, T& m, T& v, const AdamWScalars& k) {
    const T decayed = w * T(k.decay);
    m = pytorch_lerp(m, g, k.lerp_weight);
    v = v * T(k.beta2);
    v = v + T(k.one_minus_beta2) * g * g;  // addcmul: (value * g) * g, then the add
    const T denom = sqrt_of(v) / T(k.bias_correction2_sqrt) + T(k.eps);
    return decayed - T(k.step_size) * m / denom;  // addcdiv: (value * m) / denom, then the add
}

}  // namespace plab
