#pragma once
// The step ops of a backend: what the trainer and the optimizer call between
// the backward pass and the next step (gradient accumulation, the loss
// scale's unscale and update, the norm and clip, the gated optimizer
// updates), one tier per concept, each over every tensor of the step at once
// and kept where the step runs: on a GPU none needs a host round trip, so
// that a whole step can be captured in a graph.
#include <span>

#include "engine/backend/update_step.h"
#include "engine/tensor/tensor.h"

namespace plab {

// One parameter tensor of a multi-tensor optimizer update: w from its FP32
// gradient g with FP32 state (SGD: state_a is the velocity, null without
// momentum; AdamW: state_a = m, state_b = v); then, when `copy` is set (a
// parameter with an FP32 master w), copy = w rounded to copy's dtype.
struct UpdateJob {
    Tensor* w = nullptr;
    const Tensor* g = nullptr;
    Tensor* state_a = nullptr;
    Tensor* state_b = nullptr;
    Tensor* copy = nullptr;
};

// One tensor of a multi-tensor unscale: dst = FP32(src) * inv_scale.
struct UnscaleJob {
    const Tensor* src = nullptr;
    Tensor* dst = nullptr;  // FP32, src's shape
};

// How an update kept where the step runs (sgd/adamw_update_gated)
// is set, gated and counted, with no host round trip: every tensor here lives
// on the backend, and the counts land by the next wait_for_queued().
struct UpdateGate {
    // FP32 {1, kSgdSettingsWords} or {1, kAdamWSettingsWords}: the update's
    // hyper-parameters in update_settings.h's order, read where the step
    // runs (a live edit changes them, not a recorded step).
    const Tensor* settings = nullptr;
    // FP32 {1, 1}; when it holds a non-zero value nothing changes (weights,
    // optimizer state, step_count): the skip on found_inf. Null: never skipped.
    const Tensor* skip = nullptr;
    // FP32 {1, 1}: updates applied so far (AdamW's step t is this + 1); an
    // applied update adds 1.
    Tensor* step_count = nullptr;
    // AdamW: FP32 {rows, kAdamWTableWords}, row t - 1 holding the scalars of
    // step t that depend on t, as the host computes them from the settings
    // (adamw_table.h); steps past the last row use the last row.
    const Tensor* adamw_table = nullptr;
    // One per job: the update's counts (zero when skipped), written by the
    // next wait_for_queued().
    std::span<UpdateCount> counts;
};
inline constexpr int kAdamWTableWords = 2;  // step_size, bias_correction2_sqrt

class StepOps {
public:
    // dst = src (overwrite) or dst + src, rounded to dst's dtype: .grad accumulation.
    virtual void accumulate(const Tensor& src, Tensor& dst, bool overwrite) = 0;

    // The loss scale's ops. On a GPU these leave the verdict and the scale on the device, so that a
    // step needs no host round trip (and can be captured in a graph). `state`
    // is an FP32 tensor of kScalerStateWords floats, scaler_rule.h's
    // ScalerState in field order; `found_inf` an FP32 {1, 1} flag.
    // Every job's dst = FP32(src) * inv_scale (FP32 multiply, as PyTorch's
    // fused unscale; dst is FP32) with inv_scale = inverse_scale(state's
    // scale), read where the state is, in one pass where the backend can (a
    // GPU: one launch for all tensors); found_inf = 1 when some output holds
    // a NaN or Inf, else 0.
    virtual void unscale_all_flagged(std::span<const UnscaleJob> jobs, const Tensor& state, Tensor& found_inf) = 0;
    // state = next_scaler_state(rule, state, found_inf != 0), after the op
    // that wrote the flag; `rule` is an FP32 tensor of kScalerRuleWords
    // floats (store_scaler_rule's), read where the state is.
    virtual void update_scaler(const Tensor& rule, const Tensor& found_inf, Tensor& state) = 0;

    // norm ({1, 1} FP32) = sqrt of the FP32 sum, in order, of each x's
    // sum_of_squares; then, when `max_norm` is given (an FP32 {1, 1} read
    // where the step runs), unless `skip` is given and non-zero, when
    // max_norm > 0 and clip_coefficient(max_norm, norm) < 1, every x is
    // multiplied by it (global_norm.h's rule, the host's).
    virtual void norm_and_clip(std::span<Tensor* const> xs, const Tensor* max_norm, const Tensor* skip,
                               Tensor& norm) = 0;
    // The optimizer update of every job (w from its FP32 gradient g, with FP32
    // state; the new w rounded to w's dtype; then the job's copy, when set),
    // in one pass where the backend can, with gate.settings' hyper-parameters,
    // gated and counted by `gate`. For AdamW, t comes from gate.step_count and
    // the t-dependent scalars from gate.adamw_table. The CPU's reads the
    // settings, the flag and the count to the host (and checks the table's row
    // against adamw_scalars, so that a table bug shows on the CPU too).
    virtual void sgd_update_gated(std::span<const UpdateJob> jobs, const UpdateGate& gate) = 0;
    virtual void adamw_update_gated(std::span<const UpdateJob> jobs, const UpdateGate& gate) = 0;

protected:
    ~StepOps() = default;  // owned and destroyed as a Backend
};

}  // namespace plab
