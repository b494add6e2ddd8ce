#pragma once
// What one optimizer step reports: the RunLog keeps these, the GUIs plot
// them, the CLI writes them (docs/telemetry.md documents every field).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/amp/loss_scaler.h"
#include "engine/amp/fp8_tensors.h"
#include "engine/telemetry/tensor_stats.h"
#include "engine/train/decision_grid.h"
#include "engine/train/text_samples.h"

namespace plab {

// An FP8 layer's step (recipe fp8): the per-tensor scales its matmuls used,
// and its activation gradient as the E5M2 cast saw it (times grad_scale).
struct Fp8LayerRecord {
    Fp8Scales scales;
    TensorStats grad_scaled;
};

// One Linear layer's view of the step.
struct LayerRecord {
    TensorStats weight;            // the weights the step computed with (value)
    TensorStats grad;              // weight gradient as held: compute dtype, scaled
    TensorStats grad_unscaled;     // the same divided by the loss scale
    TensorStats act;               // the layer's output after its activation (logits for the last)
    TensorStats act_grad;          // gradient w.r.t. the layer's output (pre-activation), scaled
    TensorStats act_grad_unscaled;
    // Against the FP32 twin (0 when the twin is off): ||a - b|| / ||b||.
    float weight_rel_dist = 0;
    float grad_rel_dist = 0;
    float grad_cos = 0;  // cosine of the unscaled weight gradients
    std::optional<Fp8LayerRecord> fp8;  // FP8 layers only
};

// log2 histograms of one Linear layer's tensors (hist steps only).
struct LayerHistograms {
    Log2Histogram weight, grad, grad_unscaled, act, act_grad, act_grad_unscaled;
};

// The FP32 twin's tensors on a histogram step, named as the run's so that one
// view serves both. The twin computes at scale 1, so its gradients are the
// true ones: `grad_unscaled` and `act_grad_unscaled` hold them as they are,
// and `grad` and `act_grad` hold them times the run's loss scale (exact for a
// power-of-two scale): what the mixed side would hold had it computed exactly.
// What a format flushes of those is what the run's gradients lose to it,
// which the run's own statistics cannot show (a flushed value is a zero).
// Only the statistics and histograms are filled in.
struct TwinView {
    std::vector<LayerRecord> layers;
    std::vector<LayerHistograms> histograms;
};

struct StepRecord {
    std::int64_t step = 0;  // 1-based optimizer step
    float loss = 0;         // mean training loss of this step (over its micro-batches)
    float loss_ref = 0;     // the twin's
    float scale = 1;        // loss scale used in this step, before its update
    int growth_tracker = 0; // after the update
    float scale_after = 1;
    bool found_inf = false;
    bool skipped = false;
    bool backoff = false;
    bool growth = false;
    int first_nonfinite_layer = -1;  // index into layers, first in backward order; -1 if none
    float grad_norm = 0;             // global L2 norm of the unscaled gradients (before clipping)
    bool clipped = false;
    float lost_update_frac = 0;      // of the weights an update should have moved
    float lr = 0;
    std::optional<float> acc;        // test accuracy (classification) on evaluation steps
    std::optional<float> acc_ref;
    std::optional<float> test_loss;  // on evaluation steps (regression reports this instead of acc)
    std::optional<float> test_loss_ref;
    std::vector<LayerRecord> layers;
    // Every layer's histograms on the steps that took them (telemetry.hist_every), else null.
    // Shared and immutable, so copies of the record (snapshots for the GUI) cost a pointer.
    std::shared_ptr<const std::vector<LayerHistograms>> histograms;
    // The twin's statistics and histograms on the same steps (with the twin on), else null.
    std::shared_ptr<const TwinView> twin_view;
    // The decision boundary on the steps that took one (TrainerOptions::boundary_every), else null;
    // shared and immutable like the histograms.
    std::shared_ptr<const DecisionGrid> boundary;
    // A language model's text on the steps that took it (telemetry.sample_every), else null;
    // shared and immutable like the histograms.
    std::shared_ptr<const TextSamples> samples;
};

// What the loss scaler did in the step: its event into the record's fields.
inline void record_scaler_event(StepRecord& r, const ScalerEvent& e) {
    r.found_inf = e.found_inf;
    r.skipped = e.skipped;
    r.backoff = e.backoff;
    r.growth = e.growth;
    r.growth_tracker = e.growth_tracker_after;
    r.scale_after = e.scale_after;
}

}  // namespace plab
