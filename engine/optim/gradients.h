#pragma once
// The gradient side of an optimizer step, over a model's parameters, in the
// order of docs/DESIGN.md "Mixed precision semantics": micro-batch accumulation
// into grad_sum, the fused unscale + finite check into master_grad, and
// global-norm clipping of the unscaled gradients.
#include <span>
#include <vector>

#include "engine/amp/scaler_rule.h"  // inverse_scale
#include "engine/backend/backend.h"
#include "engine/backend/cpu/cpu_backend.h"
#include "engine/model/parameter.h"

namespace plab {

// grad_sum = grad (first micro-batch) or grad_sum + grad, rounded to
// grad_sum's dtype (PyTorch's .grad accumulation). A missing grad_sum is
// allocated in value's dtype.
void accumulate_gradients(Backend& backend, std::span<Parameter* const> params, bool first_micro_batch);

// The jobs of the unscale (grad_sum into master_grad), allocating any
// missing master_grad: for Backend::unscale_all_flagged.
std::vector<UnscaleJob> unscale_jobs(Backend& backend, std::span<Parameter* const> params);
// The index in `params` of the first whose master_grad holds a NaN or Inf, or -1.
int first_non_finite_grad(Backend& backend, std::span<Parameter* const> params);

// --- CPU references: the same steps one host call at a time, the oracles
// the tests compare the backends' step ops with ---

// master_grad = FP32(grad_sum) * inverse_scale(scale) for every parameter
// (no early exit: every master_grad is written). Returns found_inf: whether
// any master_grad holds a NaN or Inf. When first_non_finite is given it
// receives the index in `params` of the first parameter holding one, or -1
// (the trainer passes parameters in backward order). A missing master_grad is
// allocated (FP32).
bool unscale_gradients(CpuBackend& backend, std::span<Parameter* const> params, float scale,
                       int* first_non_finite = nullptr);
// sqrt of the FP32 sum, in parameter order, of each master_grad's sum of squares.
float global_grad_norm(CpuBackend& backend, std::span<Parameter* const> params);

// torch.nn.utils.clip_grad_norm_ on master_grad, given the norm already
// measured: coef = max_norm / (total_norm + 1e-6) in FP32, and when coef < 1
// every master_grad is multiplied by it. Returns whether it clipped.
bool clip_gradients(CpuBackend& backend, std::span<Parameter* const> params, float max_norm, float total_norm);
// The same, measuring the norm with global_grad_norm first.
bool clip_grad_norm(CpuBackend& backend, std::span<Parameter* const> params, float max_norm);

// The classic bug (optimizer.clip_scaled), for the lab to show: the same
// norm and clip on grad_sum, the still-scaled gradients, before the unscale.
// The norm is S times the true one, so the clip bites about S times harder;
// an Inf in grad_sum gives coef 0 and Inf * 0 = NaN, so found_inf survives.
float scaled_grad_norm(CpuBackend& backend, std::span<Parameter* const> params);
bool clip_scaled_gradients(CpuBackend& backend, std::span<Parameter* const> params, float max_norm, float total_norm);

}  // namespace plab
