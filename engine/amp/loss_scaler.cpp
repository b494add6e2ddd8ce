#include "engine/amp/loss_scaler.h"

#include <algorithm>
#include <cmath>

namespace plab {

LossScaler::LossScaler(const ScalerConfig& config) : config_(config) {
    validate(config_);
    scale_ = config_.kind == ScalerKind::none ? 1.0f : config_.init_scale;
    hysteresis_left_ = config_.hysteresis;
}

ScalerEvent LossScaler::update(bool found_inf) {
    ScalerEvent ev;
    ev.found_inf = found_inf;
    // A scaler skips a step whose gradients are not finite; without one
    // (kind none) nothing checks them, so the step is applied and NaN spreads
    // into the weights, exactly as plain training without GradScaler does.
    ev.skipped = found_inf && config_.kind != ScalerKind::none;
    ev.scale_before = scale_;
    if (config_.kind == ScalerKind::dynamic) update_dynamic(found_inf);
    if (config_.kind == ScalerKind::hysteresis) update_hysteresis(found_inf);
    // none and static never move S.
    ev.scale_after = scale_;
    ev.backoff = found_inf && scale_ != ev.scale_before;
    ev.growth = !found_inf && scale_ != ev.scale_before;
    ev.growth_tracker_after = growth_tracker_;
    return ev;
}

// torch.amp.GradScaler's _amp_update_scale_ (aten/src/ATen/native/cuda/AmpKernels.cu),
// statement for statement, in float. The one difference: `>=` where PyTorch
// has `==`, which only matters after a live edit lowered growth_interval
// below the tracker (PyTorch's tracker never exceeds the interval).
void LossScaler::update_dynamic(bool found_inf) {
    if (found_inf) {
        scale_ = scale_ * config_.backoff_factor;
        growth_tracker_ = 0;
        return;
    }
    const int successful = growth_tracker_ + 1;
    if (successful >= config_.growth_interval) {
        const float grown = scale_ * config_.growth_factor;
        if (std::isfinite(grown)) scale_ = grown;
        growth_tracker_ = 0;
    } else {
        growth_tracker_ = successful;
    }
}

// DeepSpeed's DynamicLossScaler.update_scale (runtime/fp16/loss_scaler.py)
// with consecutive_hysteresis=False, the DeepSpeed default, which is also
// Megatron-LM's DynamicGradScaler.update:
// - an overflow decrements hysteresis_left; the overflow that finds it at 1
//   backs off, and it stays at 1, so every further overflow backs off again
//   until a growth;
// - hysteresis_left refills only on growth, not on a clean step (that would be
//   consecutive_hysteresis=True), so `hysteresis` counts overflows since the
//   last growth, consecutive or not;
// - growth comes after growth_interval clean steps since the last overflow
//   (DeepSpeed's (cur_iter - last_overflow_iter) % scale_window == 0).
// Differences from DeepSpeed, on purpose: separate growth/backoff factors (as
// in Megatron; DeepSpeed uses one scale_factor both ways), the optional
// max_scale ceiling, and no raise_error_at_min_scale (the lab shows the run
// stuck at min_scale instead of stopping it).
void LossScaler::update_hysteresis(bool found_inf) {
    if (found_inf) {
        growth_tracker_ = 0;
        if (hysteresis_left_ <= 1)
            back_off_hysteresis();
        else
            --hysteresis_left_;
        return;
    }
    if (++growth_tracker_ >= config_.growth_interval) {
        grow_hysteresis();
        growth_tracker_ = 0;
        hysteresis_left_ = config_.hysteresis;
    }
}

// max(S * backoff, min_scale), but never upwards: after set_scale put S below
// min_scale, a backoff must not raise it.
void LossScaler::back_off_hysteresis() {
    const float next = std::max(scale_ * config_.backoff_factor, config_.min_scale);
    if (next < scale_) scale_ = next;
}

// S * growth, capped at max_scale when there is one, applied only if finite
// and only upwards. The cap comes first, so a product that overflows FP32 still
// lands on a finite max_scale; without a ceiling it is dropped like PyTorch's.
void LossScaler::grow_hysteresis() {
    float next = scale_ * config_.growth_factor;
    if (config_.max_scale > 0.0f) next = std::min(next, config_.max_scale);
    if (std::isfinite(next) && next > scale_) scale_ = next;
}

void LossScaler::reconfigure(const ScalerConfig& config) {
    validate(config);
    const ScalerKind previous = config_.kind;
    config_ = config;
    if (config_.kind != previous)
        enter_kind(previous);
    else
        hysteresis_left_ = std::min(hysteresis_left_, config_.hysteresis);
}

void LossScaler::enter_kind(ScalerKind previous) {
    switch (config_.kind) {
        case ScalerKind::none: scale_ = 1.0f; break;
        case ScalerKind::static_scale: scale_ = config_.init_scale; break;
        case ScalerKind::dynamic:
        case ScalerKind::hysteresis:
            if (previous == ScalerKind::none) scale_ = config_.init_scale;
            break;
    }
    // Only the moving kinds count clean steps; a tracker left from before
    // static/none would be stale.
    if (config_.kind == ScalerKind::none || config_.kind == ScalerKind::static_scale) growth_tracker_ = 0;
    hysteresis_left_ = config_.hysteresis;
}

void LossScaler::set_scale(float scale) {
    validate_scale(scale);
    if (config_.kind != ScalerKind::none) scale_ = scale;
}

}  // namespace plab
