// The SGD and AdamW updates on the CUDA backend: the arithmetic is
// engine/optim/update_math.h, the CPU's own definition (one formula, two
// callers), compiled without FMA, so weights and optimizer state match the
// CPU bit for bit. One pass per parameter tensor writes the new weights and
// counts the moved and lost updates (integer sums: exact in any order).
#include <string>

#include "engine/optim/update_math.h"
#include "kernels/cuda_backend.h"
#include "kernels/cuda_common.cuh"

namespace plab {

using gpu::device_floats;
using gpu::require;

namespace {

using checks::require_fp32;

struct Counts {
    long long nonzero, lost;
};

struct AddCounts {
    __device__ Counts operator()(const Counts& a, const Counts& b) const {
        return {a.nonzero + b.nonzero, a.lost + b.lost};
    }
};

// w = fresh rounded to w's dtype; an update moved the weight when fresh != w,
// and was lost when the stored value did not change (cpu_optim_ops.cpp's store_update).
__device__ __forceinline__ Counts store_update(const FormatParams& p, float fresh, float& w) {
    const float stored = gpu::round_value(p, fresh);
    const bool moved = fresh != w;
    const bool lost = moved && stored == w;
    w = stored;
    return {moved ? 1LL : 0LL, lost ? 1LL : 0LL};
}

UpdateCount to_update_count(const Counts& c) { return {c.nonzero, c.lost}; }

}  // namespace

UpdateCount CudaBackend::sgd_update(Tensor& w, const Tensor& g, Tensor& velocity, const SgdStep& step) {
    constexpr const char* op = "sgd_update";
    gpu::require_same_shape(w, g, op);
    require_fp32(g, op, "the gradient");
    float* pw = device_floats(w, op);
    const float* pg = device_floats(g, op);
    const FormatParams p = format_params(w.dtype());
    const float lr = step.lr, momentum = step.momentum, weight_decay = step.weight_decay;
    void* partials = scratch(gpu::kReducePartials, gpu::kReduceScratchBytes);
    if (momentum == 0.0f) {  // no buffer is read or written, as in PyTorch
        return to_update_count(gpu::reduce<Counts>(
            w.size(), Counts{0, 0}, stream_, partials, op,
            [=] __device__(std::size_t i) {
                return store_update(p, sgd_apply(pw[i], sgd_decayed_grad(pw[i], pg[i], weight_decay), lr), pw[i]);
            },
            AddCounts{}));
    }
    gpu::require_same_shape(w, velocity, op);
    require_fp32(velocity, op, "the momentum buffer");
    float* pv = device_floats(velocity, op);
    return to_update_count(gpu::reduce<Counts>(
        w.size(), Counts{0, 0}, stream_, partials, op,
        [=] __device__(std::size_t i) {
            pv[i] = sgd_velocity(pv[i], sgd_decayed_grad(pw[i], pg[i], weight_decay), momentum);
            return store_update(p, sgd_apply(pw[i], pv[i], lr), pw[i]);
        },
        AddCounts{}));
}

UpdateCount CudaBackend::adamw_update(Tensor& w, const Tensor& g, Tensor& m, Tensor& v, const AdamWStep& step) {
    constexpr const char* op = "adamw_update";
    gpu::require_same_shape(w, g, op);
    gpu::require_same_shape(w, m, op);
    gpu::require_same_shape(w, v, op);
    require_fp32(g, op, "the gradient");
    require_fp32(m, op, "the first moment");
    require_fp32(v, op, "the second moment");
    require(step.step >= 1, [&] { return "adamw_update: step " + std::to_string(step.step) + " must be >= 1"; });
    const AdamWScalars k = adamw_scalars(step);  // on the host, as PyTorch does
    float* pw = device_floats(w, op);
    const float* pg = device_floats(g, op);
    float* pm = device_floats(m, op);
    float* pv = device_floats(v, op);
    const FormatParams p = format_params(w.dtype());
    return to_update_count(gpu::reduce<Counts>(
        w.size(), Counts{0, 0}, stream_, scratch(gpu::kReducePartials, gpu::kReduceScratchBytes), op,
        [=] __device__(std::size_t i) {
            float mi = pm[i], vi = pv[i];
            const float fresh = adamw_element(pw[i], pg[i], mi, vi, k);
            pm[i] = mi;
            pv[i] = vi;
            return store_update(p, fresh, pw[i]);
        },
        AddCounts{}));
}

}  // namespace plab
