#pragma once
// The optimizer step of a mixed-precision run (DESIGN.md, "Mixed precision
// semantics", steps 6-7): global gradient norm, optional clipping, then the
// SGD or AdamW update of every parameter's FP32 master (or of its value when
// there is no master copy, where updates can be lost to rounding).
#include <cstdint>
#include <span>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/model/parameter.h"
#include "engine/optim/optimizer_config.h"

namespace plab {

struct OptimizerStepResult {
    float grad_norm = 0.0f;  // global L2 norm of the unscaled gradients, before clipping
    bool clipped = false;
    std::int64_t nonzero_updates = 0;  // elements whose FP32 update moved them
    std::int64_t lost_updates = 0;     // of those, elements whose stored value did not change
};

// What the scaled-gradient clip did (config.clip_scaled), before the unscale.
struct ScaledClip {
    bool applied = false;     // clip_scaled is on and clip_norm > 0
    bool clipped = false;     // the coefficient bit
    float scaled_norm = 0.0f; // global L2 norm of the scaled gradients (grad_sum), before clipping
};

class Optimizer {
public:
    explicit Optimizer(const OptimizerConfig& config);  // validates; throws plab::Error

    const OptimizerConfig& config() const { return config_; }
    // Live edit, read by the next step. Validates first (on a bad config
    // nothing changes); the momentum buffers, moments and step count are kept.
    void reconfigure(const OptimizerConfig& config);

    // One applied step from the parameters' master_grad (already unscaled).
    // The trainer calls it only for steps it applies (not on found_inf), so
    // AdamW's bias corrections count applied steps. State is kept per
    // position in `params`: pass the same parameters in the same order.
    // With config.clip_scaled it does not clip: clip_before_unscale did.
    OptimizerStepResult step(Backend& backend, std::span<Parameter* const> params);
    // Call before unscale_gradients on every step: with config.clip_scaled
    // (and clip_norm > 0) it clips the scaled grad_sum by clip_norm, the bug
    // the lab shows; otherwise it does nothing and returns applied = false.
    ScaledClip clip_before_unscale(Backend& backend, std::span<Parameter* const> params);

    int steps_taken() const { return steps_taken_; }
    // Forgets all state (buffers, moments, step count), as a new optimizer.
    void reset();
    // This optimizer's state (buffers, moments, step count) becomes an
    // independent copy of other's, for forking a run; the config is kept.
    void copy_state_from(Backend& backend, const Optimizer& other);

private:
    struct State {
        Tensor velocity;  // sgd, FP32
        Tensor m;         // adamw first moment, FP32
        Tensor v;         // adamw second moment, FP32
    };
    std::vector<UpdateCount> update_all(Backend& backend, std::span<Parameter* const> params);

    OptimizerConfig config_;
    std::vector<State> state_;
    int steps_taken_ = 0;
};

}  // namespace plab
