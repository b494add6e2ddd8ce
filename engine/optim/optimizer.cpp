#include "engine/optim/optimizer.h"

#include <string>

#include "engine/backend/op_checks.h"
#include "engine/optim/gradients.h"
#include "engine/optim/update_math.h"

namespace plab {

namespace {

using checks::require;

// The FP32 state tensor for a parameter of `shape`, zeroed on first use (a
// zero momentum buffer or moment is PyTorch's fresh state). A shape change
// (a model rebuilt under the same optimizer) starts that slot afresh.
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

void Optimizer::copy_state_from(Backend& backend, const Optimizer& other) {
    if (&other == this) return;
    state_.assign(other.state_.size(), State{});
    for (std::size_t i = 0; i < state_.size(); ++i) {
        state_[i].velocity = copy_of(backend, other.state_[i].velocity);
        state_[i].m = copy_of(backend, other.state_[i].m);
        state_[i].v = copy_of(backend, other.state_[i].v);
    }
    steps_taken_ = other.steps_taken_;
    count_on_backend_ = -1;
}

// The backend's count must be steps_taken_ before a launch: after a fork,
// or a launch whose step threw before collect() (then the backend's count
// is the truth, read back once).
void Optimizer::sync_step_count(Backend& backend) {
    if (step_count_.empty()) step_count_ = backend.allocate({1, 1}, FormatId::fp32);
    if (launched_.pending && count_on_backend_ >= 0) {
        float count = 0;
        backend.download(step_count_, &count);
        steps_taken_ = static_cast<int>(count);
        count_on_backend_ = steps_taken_;
    }
    launched_.pending = false;
    // A float counts exactly to 2^24 steps: far beyond any run here.
    require(steps_taken_ < (1 << 24), [&] {
        return "optimizer: " + std::to_string(steps_taken_) + " steps is past the 2^24 the step count holds exactly";
    });
    if (count_on_backend_ == steps_taken_) return;
    const float count = static_cast<float>(steps_taken_);
    backend.upload(&count, step_count_);
    count_on_backend_ = steps_taken_;
}

void Optimizer::prepare(Backend& backend, std::span<Parameter* const> params, const OptimizerSettingsSlot* shared) {
    sync_step_count(backend);
    if (norm_.empty()) norm_ = backend.allocate({1, 1}, FormatId::fp32);
    if (config_.clip_scaled) scaled_clip_limit(backend);
    if (state_.size() < params.size()) state_.resize(params.size());
    launched_.max_norm = config_.clip_norm > 0.0f && !config_.clip_scaled ? config_.clip_norm : 0.0f;
    launched_.grads.clear();
    for (Parameter* p : params) launched_.grads.push_back(&p->master_grad);
    launched_.jobs = update_jobs(backend, params);
    // The same size as last step keeps the storage: a recorded step writes the counts there.
    launched_.counts.assign(launched_.jobs.size(), UpdateCount{});
    launched_.adamw_table = nullptr;
    if (config_.kind == OptimizerKind::adamw)  // t is at most one past the applied steps
        launched_.adamw_table = &adamw_table_.cover(backend, adamw_step(), steps_taken_ + 1);
    prepare_settings(backend, shared);
    launched_.pending = true;
}

void Optimizer::prepare_settings(Backend& backend, const OptimizerSettingsSlot* shared) {
    uploads_settings_ = shared == nullptr;
    if (!shared && own_.on_backend.empty())
        own_.on_backend = backend.allocate({1, kOptimizerSettingsWords}, FormatId::fp32);
    own_.host = own_words_.data();  // here, not once: an optimizer can be copied
    slot_ = shared ? *shared : own_;
    const bool adamw = config_.kind == OptimizerKind::adamw;
    max_norm_ = slot_.on_backend.view(0, {1, 1});
    settings_ = slot_.on_backend.view(1, {1, adamw ? kAdamWSettingsWords : kSgdSettingsWords});
    slot_.host[0] = launched_.max_norm;
    if (adamw)
        store_update_settings(adamw_step(), slot_.host + 1);
    else
        store_update_settings(SgdStep{config_.lr, config_.momentum, config_.weight_decay}, slot_.host + 1);
}

// step.step is not read by the gated update: t is the backend's count.
AdamWStep Optimizer::adamw_step() const {
    return AdamWStep{config_.lr, config_.beta1, config_.beta2, config_.eps, config_.weight_decay, 1};
}

// Whether there is a clip at all is part of the step (a recorded step keys
// on it); its max norm and the hyper-parameters are values it uploads.
void Optimizer::run_ops(Backend& backend, const Tensor* skip) {
    if (uploads_settings_) backend.queue_upload(slot_.host, slot_.on_backend);
    const bool clips = launched_.max_norm > 0.0f;
    backend.norm_and_clip(launched_.grads, clips ? &max_norm_ : nullptr, skip, norm_);
    backend.queue_download(norm_, &launched_.norm);
    UpdateGate gate{.settings = &settings_, .skip = skip, .step_count = &step_count_,
                    .adamw_table = launched_.adamw_table, .counts = launched_.counts};
    if (config_.kind == OptimizerKind::sgd)
        backend.sgd_update_gated(launched_.jobs, gate);
    else
        backend.adamw_update_gated(launched_.jobs, gate);
    backend.queue_download(step_count_, &launched_.step_count);
}

OptimizerStepResult Optimizer::collect() {
    require(launched_.pending, [] { return std::string("optimizer: collect() without a launched step"); });
    launched_.pending = false;
    OptimizerStepResult result;
    const int count = static_cast<int>(launched_.step_count);
    result.applied = count != steps_taken_;
    steps_taken_ = count;
    count_on_backend_ = count;
    result.grad_norm = launched_.norm;
    result.clipped = result.applied && launched_.max_norm > 0.0f &&
                     clip_bites(clip_coefficient(launched_.max_norm, launched_.norm));
    for (const UpdateCount& c : launched_.counts) {
        result.nonzero_updates += c.nonzero;
        result.lost_updates += c.lost;
    }
    return result;
}

// The norm and clip of the backend's step (norm_and_clip) over the still-scaled
// grad_sum, with the host reading the norm back at once: such a step runs op by op.
ScaledClip Optimizer::clip_before_unscale(Backend& backend, std::span<Parameter* const> params) {
    ScaledClip clip;
    if (!config_.clip_scaled || config_.clip_norm <= 0.0f) return clip;
    clip.applied = true;
    std::vector<Tensor*> scaled;
    for (Parameter* p : params) scaled.push_back(&p->grad_sum);
    Tensor& limit = scaled_clip_limit(backend);
    backend.upload(&config_.clip_norm, limit);
    backend.norm_and_clip(scaled, &limit, nullptr, norm_);
    backend.download(norm_, &clip.scaled_norm);
    clip.clipped = clip_bites(clip_coefficient(config_.clip_norm, clip.scaled_norm));
    return clip;
}

// Made before the step's ops (prepare), where an allocation is allowed.
Tensor& Optimizer::scaled_clip_limit(Backend& backend) {
    if (norm_.empty()) norm_ = backend.allocate({1, 1}, FormatId::fp32);
    if (scaled_clip_limit_.empty()) scaled_clip_limit_ = backend.allocate({1, 1}, FormatId::fp32);
    return scaled_clip_limit_;
}

// Every parameter in one multi-tensor job list; a parameter with an FP32
// master gets its stored value refreshed from it in the same pass.
std::vector<UpdateJob> Optimizer::update_jobs(Backend& backend, std::span<Parameter* const> params) {
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
    return jobs;
}

}  // namespace plab
