#pragma once
// The fp8 recipe's part of a training step on the mixed-precision model
// (docs/DESIGN.md, recipe `fp8`): the step's per-tensor scales go in before its
// passes, the amaxes the passes saw come out after each micro-batch, and the
// records show the scales and the gradients as the E5M2 cast saw them.
#include <vector>

#include "engine/amp/fp8_scaling.h"
#include "engine/backend/backend.h"
#include "engine/model/model.h"
#include "engine/train/step_record.h"

namespace plab {

// Whether any layer of a pass runs its matmuls in FP8.
bool uses_fp8(const PassFormats& formats);

// After a micro-batch's forward and backward on input batch x: the amax of
// every FP8 layer's input, weight and gradient, into the step's histories.
void observe_fp8_amaxes(Backend& backend, const Model& model, const PassFormats& formats, const Tensor& x,
                        Fp8Scaling& scaling);

// Queues each FP8 layer's record (scales of the pass, statistics of its
// activation gradient times the grad scale); `layers` must be sized already.
void queue_fp8_stats(Backend& backend, const Model& model, const PassFormats& formats, std::vector<LayerRecord>& layers);

}  // namespace plab
