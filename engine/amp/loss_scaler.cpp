#include "engine/amp/loss_scaler.h"

#include <algorithm>

namespace plab {

LossScaler::LossScaler(const ScalerConfig& config) : config_(config) {
    validate(config_);
    state_.scale = config_.kind == ScalerKind::none ? 1.0f : config_.init_scale;
    state_.hysteresis_left = static_cast<float>(config_.hysteresis);
}

ScalerEvent LossScaler::update(bool found_inf) {
    ScalerEvent ev;
    ev.found_inf = found_inf;
    // A scaler skips a step whose gradients are not finite; without one
    // (kind none) nothing checks them, so the step is applied and NaN spreads
    // into the weights, exactly as plain training without GradScaler does.
    ev.skipped = found_inf && config_.kind != ScalerKind::none;
    ev.scale_before = state_.scale;
    state_ = next_scaler_state(scaler_rule(config_), state_, found_inf);
    ev.scale_after = state_.scale;
    ev.backoff = found_inf && state_.scale != ev.scale_before;
    ev.growth = !found_inf && state_.scale != ev.scale_before;
    ev.growth_tracker_after = growth_tracker();
    return ev;
}

void LossScaler::reconfigure(const ScalerConfig& config) {
    validate(config);
    const ScalerKind previous = config_.kind;
    config_ = config;
    if (config_.kind != previous)
        enter_kind(previous);
    else
        state_.hysteresis_left = std::min(state_.hysteresis_left, static_cast<float>(config_.hysteresis));
}

void LossScaler::enter_kind(ScalerKind previous) {
    switch (config_.kind) {
        case ScalerKind::none: state_.scale = 1.0f; break;
        case ScalerKind::static_scale: state_.scale = config_.init_scale; break;
        case ScalerKind::dynamic:
        case ScalerKind::hysteresis:
            if (previous == ScalerKind::none) state_.scale = config_.init_scale;
            break;
    }
    // Only the moving kinds count clean steps; a tracker left from before
    // static/none would be stale.
    if (config_.kind == ScalerKind::none || config_.kind == ScalerKind::static_scale) state_.growth_tracker = 0;
    state_.hysteresis_left = static_cast<float>(config_.hysteresis);
}

void LossScaler::set_scale(float scale) {
    validate_scale(scale);
    if (config_.kind != ScalerKind::none) state_.scale = scale;
}

}  // namespace plab
