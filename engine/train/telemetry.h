#pragma once
// Telemetry of one step (docs/DESIGN.md, "Telemetry"), gathered from the model's
// tensors through Backend ops (a GPU backend computes them where the tensors
// live). Statistics and histograms are queued (Backend::queue_telemetry) so
// that a backend can compute them while the step goes on; they are complete
// once Backend::wait_for_queued() returns.
#include <vector>

#include "engine/backend/backend.h"
#include "engine/model/model.h"
#include "engine/train/step_record.h"

namespace plab {

// Every function here covers the model's telemetry layers
// (telemetry_layers.h): its matmul layers, then its parameter tables, whose
// activation views stay empty (count 0).
//
// Queues the statistics of what the last backward pass left: each layer's
// activation, activation gradient and weight gradient, gradients also
// divided by the loss scale `scale`. Sizes `layers` to the model first.
void queue_pass_stats(Backend& backend, const Model& model, float scale, std::vector<LayerRecord>& layers);
// Queues the statistics of each layer's weights (as stored, after the update).
void queue_weight_stats(Backend& backend, const Model& model, std::vector<LayerRecord>& layers);
// Queues every layer's histograms into `out` (sized to the model, cleared).
void queue_histograms(Backend& backend, const Model& model, float scale, std::vector<LayerHistograms>& out);

// Queues the twin's statistics and histograms into `out` (sized to the
// model, cleared): its gradients as they are and times the run's loss scale
// `scale` (TwinView); that view is left empty (count 0) where the scale has
// none, as the run's unscaled view is.
void queue_twin_view(Backend& backend, const Model& twin, float scale, TwinView& out);

// Twin comparison: relative L2 distance of the optimizer's weights and of the
// unscaled gradients, and the gradients' cosine similarity. Queued: the sums
// comparing each layer with the twin's land in `sums` (weights and gradients,
// two per layer) by wait_for_queued() (a GPU: no sync per comparison); then
// set_twin_comparison turns them into the layers' fields.
void queue_twin_comparison(Backend& backend, const Model& model, const Model& twin, std::vector<TensorComparison>& sums);
void set_twin_comparison(const std::vector<TensorComparison>& sums, std::vector<LayerRecord>& layers);

}  // namespace plab
