#pragma once
// The optimizer step of a mixed-precision run (docs/DESIGN.md, "Mixed precision
// semantics", steps 6-7): global gradient norm, optional clipping, then the
// SGD or AdamW update of every parameter's FP32 master (or of its value when
// there is no master copy, where updates can be lost to rounding).
#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/backend/update_settings.h"
#include "engine/model/parameter.h"
#include "engine/optim/adamw_table.h"
#include "engine/optim/optimizer_config.h"

namespace plab {

struct OptimizerStepResult {
    bool applied = false;    // false: the step was skipped (found_inf) and nothing changed
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

// An optimizer's settings as the backend holds them: the clip's max norm,
// then the update's hyper-parameters (update_settings.h, room for AdamW's).
inline constexpr int kOptimizerSettingsWords = 1 + kAdamWSettingsWords;

// Where they live: kOptimizerSettingsWords FP32 words on the backend and
// their host copy.
struct OptimizerSettingsSlot {
    float* host = nullptr;
    Tensor on_backend;  // {1, kOptimizerSettingsWords}
};

class Optimizer {
public:
    explicit Optimizer(const OptimizerConfig& config);  // validates; throws plab::Error

    const OptimizerConfig& config() const { return config_; }
    // Live edit, read by the next step. Validates first (on a bad config
    // nothing changes); the momentum buffers, moments and step count are kept.
    void reconfigure(const OptimizerConfig& config);

    // One step from the parameters' master_grad (already unscaled), kept
    // where the backend runs it, with no host round trip: the global norm,
    // the clip, and the update of every parameter. When `skip` (an FP32
    // {1, 1} flag on the backend: the step's found_inf) holds a non-zero
    // value the backend skips the clip and the update, and the step count
    // stays, so AdamW's bias corrections count applied steps; the norm is
    // measured either way. With config.clip_scaled it does not clip:
    // clip_before_unscale did. State is kept per position in `params`: pass
    // the same parameters in the same order.
    // The trainer's step phases (trainer.h): prepare, then run_ops; the
    // results land by backend.wait_for_queued(), and collect() reads them.
    // The host's part: state tensors made, the step count put on the
    // backend, AdamW's table grown, the landing places set, the settings'
    // host words filled. With a `shared` slot its owner uploads the words in
    // the step's order before run_ops (one copy with its other settings);
    // without, the optimizer keeps its own and run_ops uploads them.
    void prepare(Backend& backend, std::span<Parameter* const> params, const OptimizerSettingsSlot* shared = nullptr);
    // The backend's part, ops only (so a recorded step can hold it, and
    // replay it after each prepare): the prepared parameters' step.
    void run_ops(Backend& backend, const Tensor* skip);
    // After wait_for_queued(): what the launched step did.
    OptimizerStepResult collect();
    // Call before unscale_gradients on every step: with config.clip_scaled
    // (and clip_norm > 0) it clips the scaled grad_sum by clip_norm, the bug
    // the lab shows; otherwise it does nothing and returns applied = false.
    ScaledClip clip_before_unscale(Backend& backend, std::span<Parameter* const> params);

    int steps_taken() const { return steps_taken_; }
    // f(tensor) for every state tensor held (momentum buffers, moments).
    template <typename F>
    void for_each_state_tensor(F&& f) const {
        for (const State& s : state_)
            for (const Tensor* t : {&s.velocity, &s.m, &s.v})
                if (!t->empty()) f(*t);
    }
    // This optimizer's state (buffers, moments, step count) becomes an
    // independent copy of other's, for forking a run; the config is kept.
    void copy_state_from(Backend& backend, const Optimizer& other);

private:
    struct State {
        Tensor velocity;  // sgd, FP32
        Tensor m;         // adamw first moment, FP32
        Tensor v;         // adamw second moment, FP32
    };
    // Where a launched step's results land (queue_download targets, counts).
    struct Launched {
        bool pending = false;
        float max_norm = 0.0f;  // the clip it ran with; 0 = none
        float norm = 0.0f;
        float step_count = 0.0f;
        std::vector<UpdateCount> counts;
        // What run_ops runs, as prepare left it.
        std::vector<Tensor*> grads;
        std::vector<UpdateJob> jobs;
        const Tensor* adamw_table = nullptr;
    };
    std::vector<UpdateJob> update_jobs(Backend& backend, std::span<Parameter* const> params);
    Tensor& scaled_clip_limit(Backend& backend);
    void sync_step_count(Backend& backend);
    AdamWStep adamw_step() const;
    void prepare_settings(Backend& backend, const OptimizerSettingsSlot* shared);

    OptimizerConfig config_;
    std::vector<State> state_;
    int steps_taken_ = 0;
    // On the backend: the applied-step count the update kernels read and
    // advance, and the norm; count_on_backend_ is steps_taken_ as last put
    // there or read back (-1: unknown, it is uploaded before the next launch).
    Tensor step_count_, norm_;
    // clip_before_unscale's max norm on the backend (with config.clip_scaled).
    Tensor scaled_clip_limit_;
    int count_on_backend_ = -1;
    // The settings a step reads on the backend (a recorded step reads them at
    // each replay, so a live edit needs no new recording): the slot prepare()
    // fills, and its views for the ops (the max norm, UpdateGate::settings).
    // own_ serves when no shared slot is given; then run_ops uploads it.
    OptimizerSettingsSlot slot_, own_;
    std::array<float, kOptimizerSettingsWords> own_words_{};
    bool uploads_settings_ = false;
    Tensor max_norm_, settings_;
    AdamWTable adamw_table_;
    Launched launched_;
};

}  // namespace plab
