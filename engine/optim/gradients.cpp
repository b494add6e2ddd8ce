#include "engine/optim/gradients.h"

#include <vector>

#include "engine/backend/cpu/global_norm.h"

namespace plab {

namespace {

// Allocates `t` (zeroed) when it is missing; a tensor already there is kept.
void ensure_allocated(Backend& backend, Tensor& t, Shape shape, FormatId dtype) {
    if (t.empty()) t = backend.allocate(shape, dtype);
}

}  // namespace

void accumulate_gradients(Backend& backend, std::span<Parameter* const> params, bool first_micro_batch) {
    for (Parameter* p : params) {
        ensure_allocated(backend, p->grad_sum, p->value.shape(), p->value.dtype());
        backend.accumulate(p->grad, p->grad_sum, first_micro_batch);
    }
}

std::vector<UnscaleJob> unscale_jobs(Backend& backend, std::span<Parameter* const> params) {
    std::vector<UnscaleJob> jobs;
    jobs.reserve(params.size());
    for (Parameter* p : params) {
        ensure_allocated(backend, p->master_grad, p->grad_sum.shape(), FormatId::fp32);
        jobs.push_back({&p->grad_sum, &p->master_grad});
    }
    return jobs;
}

int first_non_finite_grad(Backend& backend, std::span<Parameter* const> params) {
    for (std::size_t i = 0; i < params.size(); ++i)
        if (backend.count_non_finite(params[i]->master_grad) > 0) return static_cast<int>(i);
    return -1;
}

bool unscale_gradients(CpuBackend& backend, std::span<Parameter* const> params, float scale, int* first_non_finite) {
    const int first = backend.unscale_all(unscale_jobs(backend, params), inverse_scale(scale));
    if (first_non_finite) *first_non_finite = first;
    return first >= 0;
}

namespace {

// The global norm and the clip, over one of a parameter's gradient copies:
// master_grad (the correct place) or grad_sum (the scaled-clip bug).
float norm_of(CpuBackend& backend, std::span<Parameter* const> params, Tensor Parameter::*grads) {
    std::vector<const Tensor*> tensors;
    for (Parameter* p : params) tensors.push_back(&(p->*grads));
    return global_norm(backend, tensors);
}

bool clip_to(CpuBackend& backend, std::span<Parameter* const> params, Tensor Parameter::*grads, float max_norm,
             float total_norm) {
    std::vector<Tensor*> tensors;
    for (Parameter* p : params) tensors.push_back(&(p->*grads));
    return clip_to_norm(backend, tensors, max_norm, total_norm);
}

}  // namespace

float global_grad_norm(CpuBackend& backend, std::span<Parameter* const> params) {
    return norm_of(backend, params, &Parameter::master_grad);
}

bool clip_gradients(CpuBackend& backend, std::span<Parameter* const> params, float max_norm, float total_norm) {
    return clip_to(backend, params, &Parameter::master_grad, max_norm, total_norm);
}

float scaled_grad_norm(CpuBackend& backend, std::span<Parameter* const> params) {
    return norm_of(backend, params, &Parameter::grad_sum);
}

bool clip_scaled_gradients(CpuBackend& backend, std::span<Parameter* const> params, float max_norm, float total_norm) {
    return clip_to(backend, params, &Parameter::grad_sum, max_norm, total_norm);
}

bool clip_grad_norm(CpuBackend& backend, std::span<Parameter* const> params, float max_norm) {
    return clip_gradients(backend, params, max_norm, global_grad_norm(backend, params));
}

}  // namespace plab
