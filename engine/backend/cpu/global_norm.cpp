#include "engine/backend/cpu/global_norm.h"

#include <cmath>

#include "engine/optim/update_math.h"

namespace plab {

float global_norm(CpuBackend& backend, std::span<const Tensor* const> xs) {
    float sum = 0.0f;
    for (const float s : backend.sum_of_squares_all(xs)) sum += s;  // in order
    return std::sqrt(sum);
}

// PyTorch multiplies by min(coef, 1) always; multiplying by 1 changes
// nothing, so the tensors are only touched when the coefficient bites.
bool clip_to_norm(CpuBackend& backend, std::span<Tensor* const> xs, float max_norm, float total_norm) {
    const float coef = clip_coefficient(max_norm, total_norm);
    if (!clip_bites(coef)) return false;
    for (Tensor* x : xs) backend.scale_in_place(*x, coef);
    return true;
}

}  // namespace plab
