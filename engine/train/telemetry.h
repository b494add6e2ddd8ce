#pragma once
// Telemetry of one step (DESIGN.md, "Telemetry"), gathered from the model's
// tensors after the step through Backend ops (a GPU backend computes them
// where the tensors live).
#include <vector>

#include "engine/backend/backend.h"
#include "engine/model/mlp.h"
#include "engine/train/step_record.h"

namespace plab {

// log2 histograms of one Linear layer's tensors (hist steps only).
struct LayerHistograms {
    Log2Histogram weight, grad, grad_unscaled, act, act_grad, act_grad_unscaled;
};

// Statistics of each Linear layer's weight, weight gradient, activation and
// activation gradient; gradients also divided by the loss scale `scale`.
void collect_layer_stats(Backend& backend, const Mlp& model, float scale, std::vector<LayerRecord>& layers);

// Twin comparison: relative L2 distance of the optimizer's weights and of the
// unscaled gradients, and the gradients' cosine similarity.
void compare_with_twin(Backend& backend, const Mlp& model, const Mlp& twin, std::vector<LayerRecord>& layers);

std::vector<LayerHistograms> collect_histograms(Backend& backend, const Mlp& model, float scale);

}  // namespace plab
