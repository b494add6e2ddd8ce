#pragma once
// The loss scaler's update rule as plain data and one function that the host
// (LossScaler) and a GPU kernel (kernels/cuda_reduction_ops.cu) both run, so a
// scale kept on the device moves exactly as the CPU's does. All arithmetic on
// S is FP32, as in PyTorch's _amp_update_scale_ kernel.
//
// The counters are held as floats (exact: growth_interval and hysteresis are
// far below 2^24) so that the whole state fits one FP32 tensor on a device.
#include <cstdint>

#include "engine/amp/scaler_config.h"
#include "engine/common/host_device.h"
#include "engine/numeric/scalar_cast.h"

namespace plab {

// What the rule reads of a ScalerConfig; the kind as an int for device code.
struct ScalerRule {
    int kind = 0;  // static_cast<int>(ScalerKind)
    float growth_factor = 2.0f;
    float backoff_factor = 0.5f;
    float growth_interval = 2000;
    float hysteresis = 2;
    float min_scale = 1.0f;
    float max_scale = 0.0f;  // 0 = no ceiling
};

inline ScalerRule scaler_rule(const ScalerConfig& c) {
    return {static_cast<int>(c.kind), c.growth_factor,  c.backoff_factor,       static_cast<float>(c.growth_interval),
            static_cast<float>(c.hysteresis), c.min_scale, c.max_scale};
}

// A ScalerRule as the kScalerRuleWords floats a backend keeps (the kind as a
// float: exact), and back. The rule lives on the backend like the state, so
// that a live edit of the scaler's parameters changes the numbers a recorded
// step reads, not the step.
inline constexpr int kScalerRuleWords = 7;
PLAB_HD void store_scaler_rule(const ScalerRule& r, float* words) {
    words[0] = static_cast<float>(r.kind);
    words[1] = r.growth_factor;
    words[2] = r.backoff_factor;
    words[3] = r.growth_interval;
    words[4] = r.hysteresis;
    words[5] = r.min_scale;
    words[6] = r.max_scale;
}
PLAB_HD ScalerRule load_scaler_rule(const float* words) {
    return {static_cast<int>(words[0]), words[1], words[2], words[3], words[4], words[5], words[6]};
}

// PyTorch GradScaler's inverse: scale.double().reciprocal().float(). The
// unscale multiplies by it (for scale 3 that is not the same as dividing).
PLAB_HD float inverse_scale(float scale) { return static_cast<float>(1.0 / static_cast<double>(scale)); }

// The state the rule moves: S, clean steps since the last overflow or growth,
// and the overflows the hysteresis kind still tolerates.
struct ScalerState {
    float scale = 1.0f;
    float growth_tracker = 0;
    float hysteresis_left = 1;
};
inline constexpr int kScalerStateWords = 3;  // floats of a ScalerState, in field order

// A ScalerState as the kScalerStateWords floats a backend keeps, and back:
// the one place that knows the order.
PLAB_HD ScalerState load_scaler_state(const float* words) { return {words[0], words[1], words[2]}; }
PLAB_HD void store_scaler_state(const ScalerState& s, float* words) {
    words[0] = s.scale;
    words[1] = s.growth_tracker;
    words[2] = s.hysteresis_left;
}

namespace scaler_detail {

PLAB_HD bool is_finite(float x) { return (float_bits(x) & 0x7f800000u) != 0x7f800000u; }

// torch.amp.GradScaler's _amp_update_scale_ (aten/src/ATen/native/cuda/AmpKernels.cu),
// statement for statement, in float. The one difference: `>=` where PyTorch
// has `==`, which only matters after a live edit lowered growth_interval
// below the tracker (PyTorch's tracker never exceeds the interval).
PLAB_HD ScalerState next_dynamic(const ScalerRule& r, ScalerState s, bool found_inf) {
    if (found_inf) {
        s.scale = s.scale * r.backoff_factor;
        s.growth_tracker = 0;
        return s;
    }
    const float successful = s.growth_tracker + 1;
    if (successful >= r.growth_interval) {
        const float grown = s.scale * r.growth_factor;
        if (is_finite(grown)) s.scale = grown;
        s.growth_tracker = 0;
    } else {
        s.growth_tracker = successful;
    }
    return s;
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
PLAB_HD ScalerState next_hysteresis(const ScalerRule& r, ScalerState s, bool found_inf) {
    if (found_inf) {
        s.growth_tracker = 0;
        if (s.hysteresis_left <= 1) {
            // max(S * backoff, min_scale), but never upwards: after a live
            // set_scale put S below min_scale, a backoff must not raise it.
            float next = s.scale * r.backoff_factor;
            next = next < r.min_scale ? r.min_scale : next;
            if (next < s.scale) s.scale = next;
        } else {
            s.hysteresis_left = s.hysteresis_left - 1;
        }
        return s;
    }
    s.growth_tracker = s.growth_tracker + 1;
    if (s.growth_tracker >= r.growth_interval) {
        // S * growth, capped at max_scale when there is one, applied only if
        // finite and only upwards. The cap comes first, so a product that
        // overflows FP32 still lands on a finite max_scale; without a ceiling
        // it is dropped like PyTorch's.
        float next = s.scale * r.growth_factor;
        if (r.max_scale > 0.0f && r.max_scale < next) next = r.max_scale;
        if (is_finite(next) && next > s.scale) s.scale = next;
        s.growth_tracker = 0;
        s.hysteresis_left = r.hysteresis;
    }
    return s;
}

}  // namespace scaler_detail

// The state after one optimizer step whose unscaled gradients were (not)
// all finite. none and static never move S.
PLAB_HD ScalerState next_scaler_state(const ScalerRule& r, ScalerState s, bool found_inf) {
    if (r.kind == static_cast<int>(ScalerKind::dynamic)) return scaler_detail::next_dynamic(r, s, found_inf);
    if (r.kind == static_cast<int>(ScalerKind::hysteresis)) return scaler_detail::next_hysteresis(r, s, found_inf);
    return s;
}

}  // namespace plab
