#pragma once
// Shared helpers of the optimizer tests: CPU tensors from literal values, and
// slow references of PyTorch's SGD and AdamW written from PyTorch's own
// source (torch/optim/sgd.py and adam.py, single-tensor paths; ATen's CPU
// kernels for add(alpha=), lerp, addcmul and addcdiv), one element at a time,
// sharing no code with the engine. Python scalars are doubles there; each
// enters its tensor op rounded once to float, as ATen does.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <span>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/optim/optimizer.h"

namespace plab::test {

inline Tensor make(CpuBackend& be, FormatId dtype, const std::vector<float>& values) {
    Tensor t = be.allocate({1, static_cast<int>(values.size())}, dtype);
    be.upload(values.data(), t);
    return t;
}

// One optimizer step as the trainer runs it: prepare, run_ops (gated by
// `skip` when given), the host wait, collect.
inline OptimizerStepResult run_step(Optimizer& opt, Backend& be, std::span<Parameter* const> params,
                                    const Tensor* skip = nullptr) {
    opt.prepare(be, params);
    opt.run_ops(be, skip);
    be.wait_for_queued();
    return opt.collect();
}

inline std::vector<float> values_of(const Tensor& t) { return {t.host(), t.host() + t.size()}; }

inline std::uint32_t bits(float x) {
    std::uint32_t b;
    std::memcpy(&b, &x, sizeof b);
    return b;
}

// ---------------------------------------------------------------------------
// torch.optim.SGD(lr, momentum, weight_decay), dampening 0, nesterov off.

struct RefSgd {
    float lr;
    float momentum;
    float weight_decay;
    std::vector<float> buf;  // momentum_buffer; empty = None
};

inline void ref_sgd_step(RefSgd& s, std::vector<float>& w, const std::vector<float>& g) {
    std::vector<float> d = g;
    if (s.weight_decay != 0.0f)
        for (std::size_t i = 0; i < d.size(); ++i) d[i] = d[i] + s.weight_decay * w[i];  // d.add(p, alpha=wd)
    if (s.momentum != 0.0f) {
        if (s.buf.empty()) {
            s.buf = d;  // torch.clone(d).detach()
        } else {
            for (float& b : s.buf) b = b * s.momentum;                          // buf.mul_(momentum)
            for (std::size_t i = 0; i < d.size(); ++i) s.buf[i] = s.buf[i] + d[i];  // .add_(d, alpha=1)
        }
        d = s.buf;
    }
    const float alpha = -s.lr;
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = w[i] + alpha * d[i];  // p.add_(d, alpha=-lr)
}

// ---------------------------------------------------------------------------
// torch.optim.AdamW(lr, betas, eps, weight_decay), amsgrad off.

struct RefAdamW {
    float lr;
    float beta1;
    float beta2;
    float eps;
    float weight_decay;
    std::vector<float> exp_avg;
    std::vector<float> exp_avg_sq;
    double step = 0;  // state['step'] (a float tensor, read back with .item())
};

// ATen's scalar lerp (aten/src/ATen/native/Lerp.h).
inline float ref_lerp(float self, float end, float weight) {
    return std::abs(weight) < 0.5f ? self + weight * (end - self) : end - (end - self) * (1.0f - weight);
}

inline void ref_adamw_step(RefAdamW& s, std::vector<float>& w, const std::vector<float>& g) {
    const std::size_t n = w.size();
    if (s.exp_avg.empty()) {
        s.exp_avg.assign(n, 0.0f);
        s.exp_avg_sq.assign(n, 0.0f);
    }
    s.step += 1;
    // Python: lr, betas, eps, weight_decay are floats (doubles).
    const double lr = s.lr, beta1 = s.beta1, beta2 = s.beta2, wd = s.weight_decay;
    const float decay = static_cast<float>(1.0 - lr * wd);
    for (std::size_t i = 0; i < n; ++i) w[i] = w[i] * decay;  // param.mul_(1 - lr * weight_decay)
    const float lerp_weight = static_cast<float>(1.0 - beta1);
    for (std::size_t i = 0; i < n; ++i) s.exp_avg[i] = ref_lerp(s.exp_avg[i], g[i], lerp_weight);
    const float beta2_f = static_cast<float>(beta2);
    const float value = static_cast<float>(1.0 - beta2);
    for (std::size_t i = 0; i < n; ++i) s.exp_avg_sq[i] = s.exp_avg_sq[i] * beta2_f;  // mul_(beta2)
    for (std::size_t i = 0; i < n; ++i) {  // addcmul_(grad, grad, value=1 - beta2)
        const float prod = value * g[i];
        s.exp_avg_sq[i] = s.exp_avg_sq[i] + prod * g[i];
    }
    const double bias_correction1 = 1 - std::pow(beta1, s.step);
    const double bias_correction2 = 1 - std::pow(beta2, s.step);
    const double step_size = lr / bias_correction1;
    const double bias_correction2_sqrt = std::pow(bias_correction2, 0.5);
    const float bc2 = static_cast<float>(bias_correction2_sqrt);
    const float neg_step = static_cast<float>(-step_size);
    for (std::size_t i = 0; i < n; ++i) {
        float denom = std::sqrt(s.exp_avg_sq[i]);  // exp_avg_sq.sqrt()
        denom = denom / bc2;                       // / bias_correction2_sqrt
        denom = denom + s.eps;                     // .add_(eps)
        const float num = neg_step * s.exp_avg[i];
        w[i] = w[i] + num / denom;  // param.addcdiv_(exp_avg, denom, value=-step_size)
    }
}

}  // namespace plab::test
