#pragma once
// The loss scaler: the S the loss is multiplied by, and how S moves after
// each optimizer step. docs/DESIGN.md, "Loss scaler".
//
// All arithmetic on S is FP32 (float), as in PyTorch's
// _amp_update_scale_ kernel, so a run here follows the same scale sequence
// bit for bit.
#include "engine/amp/scaler_config.h"
#include "engine/amp/scaler_rule.h"

namespace plab {

// What one update did, for telemetry and the UI's step markers. The backoff
// and growth flags are set only when the scale actually changed for that
// reason (a growth blocked by FP32 overflow or max_scale, or a backoff held
// at min_scale, leaves them false).
struct ScalerEvent {
    bool found_inf = false;
    bool skipped = false;  // the optimizer step was not applied
    bool backoff = false;
    bool growth = false;
    float scale_before = 0;
    float scale_after = 0;
    int growth_tracker_after = 0;
};

class LossScaler {
public:
    explicit LossScaler(const ScalerConfig& config);  // validates; throws plab::Error

    float scale() const { return state_.scale; }  // S for this step; 1 for kind none
    int growth_tracker() const { return static_cast<int>(state_.growth_tracker); }
    // Overflows the hysteresis kind still tolerates before backing off
    // (counting the one that backs off); equals config().hysteresis otherwise.
    int hysteresis_left() const { return static_cast<int>(state_.hysteresis_left); }
    // All of it, as a device keeps it (scaler_rule.h).
    const ScalerState& state() const { return state_; }
    const ScalerConfig& config() const { return config_; }

    // Once per optimizer step, after the fused finite check of the unscaled
    // gradients. Every kind but none skips a step with a non-finite gradient;
    // none applies it (no scaler, no check: NaN reaches the weights).
    ScalerEvent update(bool found_inf);

    // Live edit, read by the next update. Scale and growth tracker are kept
    // (a tracker already >= the new growth_interval grows on the next finite
    // step); a new init_scale does not touch the current scale (set_scale
    // does). Switching kind: to static sets S = init_scale, to none S = 1,
    // from none to a moving kind starts at init_scale (none had no scale to
    // keep), into hysteresis refills hysteresis_left. Validates first; on a
    // bad config nothing changes.
    void reconfigure(const ScalerConfig& config);

    // Live edit of the current scale (the UI's "init_scale as 2^k" on a
    // running scaler). Ignored by kind none, whose S is always 1. Throws
    // plab::Error unless finite and > 0.
    void set_scale(float scale);

private:
    void enter_kind(ScalerKind previous);

    ScalerConfig config_;
    ScalerState state_;
};

}  // namespace plab
