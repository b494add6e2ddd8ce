#include "engine/optim/optimizer.h"

#include "engine/optim/gradients.h"

namespace plab {

namespace {

// The FP32 state tensor for a parameter of `shape`, zeroed on first use (a
// zero momentum buffer or moment is PyTorch's fresh state). A shape change
// (a model rebuilt without reset) starts that slot afresh.
Tensor& state_tensor(Backend& backend, Tensor& slot, Shape shape) {
    if (slot.empty() || slot.shape() != shape) slot = backend.allocate(shape, FormatId::fp32);
    return slot;
}

// A deep copy of `from` (tensors are handles: assignment would share storage).
Tensor copy_of(Backend& backend, const Tensor& from) {
    if (from.empty()) return {};
    Tensor to = backend.allocate(from.shape(), from.dtype());
    backend.convert(from, to);
    return to;
}

}  // namespace

Optimizer::Optimizer(const OptimizerConfig& config) : config_(config) { validate(config_); }

void Optimizer::reconfigure(const OptimizerConfig& config) {
    validate(config);
    config_ = config;
}

void Optimizer::reset() {
    state_.clear();
    steps_taken_ = 0;
}

void Optimizer::copy_state_from(Backend& backend, const Optimizer& other) {
    if (&other == this) return;
    state_.assign(other.state_.size(), State{});
    for (std::size_t i = 0; i < state_.size(); ++i) {
        state_[i].velocity = copy_of(backend, other.state_[i].velocity);
        state_[i].m = copy_of(backend, other.state_[i].m);
        state_[i].v = copy_of(backend, other.state_[i].v);
    }
    steps_taken_ = other.steps_taken_;
}

OptimizerStepResult Optimizer::step(Backend& backend, std::span<Parameter* const> params) {
    OptimizerStepResult result;
    result.grad_norm = global_grad_norm(backend, params);
    if (config_.clip_norm > 0.0f && !config_.clip_scaled)
        result.clipped = clip_gradients(backend, params, config_.clip_norm, result.grad_norm);
    if (state_.size() < params.size()) state_.resize(params.size());
    for (const UpdateCount& count : update_all(backend, params)) {
        result.nonzero_updates += count.nonzero;
        result.lost_updates += count.lost;
    }
    ++steps_taken_;
    return result;
}

ScaledClip Optimizer::clip_before_unscale(Backend& backend, std::span<Parameter* const> params) {
    ScaledClip clip;
    if (!config_.clip_scaled || config_.clip_norm <= 0.0f) return clip;
    clip.applied = true;
    clip.scaled_norm = scaled_grad_norm(backend, params);
    clip.clipped = clip_scaled_gradients(backend, params, config_.clip_norm, clip.scaled_norm);
    return clip;
}

// Every parameter in one multi-tensor call; a parameter with an FP32 master
// gets its stored value refreshed from it in the same pass.
std::vector<UpdateCount> Optimizer::update_all(Backend& backend, std::span<Parameter* const> params) {
    std::vector<UpdateJob> jobs;
    const bool sgd = config_.kind == OptimizerKind::sgd;
    for (std::size_t i = 0; i < params.size(); ++i) {
        Parameter& p = *params[i];
        State& state = state_[i];
        Tensor& w = p.target();
        UpdateJob job{.w = &w, .g = &p.master_grad, .copy = p.master.empty() ? nullptr : &p.value};
        if (sgd) {  // without momentum no buffer is needed; one is made when momentum is turned on
            if (config_.momentum != 0.0f) job.state_a = &state_tensor(backend, state.velocity, w.shape());
        } else {
            job.state_a = &state_tensor(backend, state.m, w.shape());
            job.state_b = &state_tensor(backend, state.v, w.shape());
        }
        jobs.push_back(job);
    }
    if (sgd) return backend.sgd_update_all(jobs, SgdStep{config_.lr, config_.momentum, config_.weight_decay});
    return backend.adamw_update_all(jobs, AdamWStep{config_.lr, config_.beta1, config_.beta2, config_.eps,
                                                    config_.weight_decay, steps_taken_ + 1});
}

}  // namespace plab
