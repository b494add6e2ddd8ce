#pragma once
// Whether a loss scale sits at its scaler's floor or ceiling: where the rule
// itself would not move it lower on an overflow, or higher on a due growth.
// Asking the rule (scaler_rule.h) instead of comparing with min_scale and
// max_scale gives every kind its own bounds: the hysteresis kind stops at
// min_scale and max_scale, PyTorch's dynamic rule has neither and stops only
// where FP32 does (a scale backed off to 0, a growth that would overflow).
#include "engine/amp/scaler_rule.h"

namespace plab {

// Only the moving kinds have bounds; static and none never move S.
inline bool scaler_moves(const ScalerConfig& c) {
    return c.kind == ScalerKind::dynamic || c.kind == ScalerKind::hysteresis;
}

// An overflow that backs off (the hysteresis kind's last tolerated one) would leave S where it is.
inline bool scale_at_floor(const ScalerConfig& c, float scale) {
    if (!scaler_moves(c)) return false;
    const ScalerState backing_off{scale, 0, 1};
    return next_scaler_state(scaler_rule(c), backing_off, true).scale >= scale;
}

// A clean step that completes the growth interval would leave S where it is.
inline bool scale_at_ceiling(const ScalerConfig& c, float scale) {
    if (!scaler_moves(c)) return false;
    const ScalerState growth_due{scale, static_cast<float>(c.growth_interval - 1), static_cast<float>(c.hysteresis)};
    return next_scaler_state(scaler_rule(c), growth_due, false).scale <= scale;
}

}  // namespace plab
