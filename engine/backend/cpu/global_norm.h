#pragma once
// torch.nn.utils.clip_grad_norm_'s two halves over tensors on the CPU,
// through its per-tensor ops: the one host definition that the CPU's
// norm_and_clip and the CPU references of optim/gradients.h both use.
#include <span>

#include "engine/backend/cpu/cpu_backend.h"

namespace plab {

// sqrt of the FP32 sum, in order, of each x's sum_of_squares.
float global_norm(CpuBackend& backend, std::span<const Tensor* const> xs);

// coef = clip_coefficient(max_norm, total_norm) (update_math.h); when it
// bites, every x is multiplied by it (scale_in_place). Returns whether it did.
bool clip_to_norm(CpuBackend& backend, std::span<Tensor* const> xs, float max_norm, float total_norm);

}  // namespace plab
