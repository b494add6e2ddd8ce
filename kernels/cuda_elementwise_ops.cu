// Elementwise ops on the CUDA backend: activations and their gradients,
// gradient accumulation, scaling. Each is one kernel over the tensor with the
// engine's scalar definitions (activation_math.h) and one rounding of the
// output: with --fmad=false these match the CPU bit for bit, except that
// tanh, erf and exp come from CUDA's math library (within 2 ULPs of glibc's).
#include "engine/backend/activation_math.h"
#include "kernels/cuda_backend.h"
#include "kernels/cuda_common.cuh"

namespace plab {

using gpu::device_values;

void CudaBackend::activation_forward(Activation a, const Tensor& x, Tensor& y) {
    constexpr const char* op = "activation_forward";
    gpu::require_same_shape(x, y, op);
    const gpu::Values in = device_values(x, op);
    const gpu::Values out = device_values(y, op);
    gpu::for_each(x.size(), stream_, op, [=] __device__(std::size_t i) { out.store(i, activate(a, in[i])); });
}

void CudaBackend::activation_backward(Activation a, const Tensor& x, const Tensor& dy, Tensor& dx) {
    constexpr const char* op = "activation_backward";
    gpu::require_same_shape(x, dy, op);
    gpu::require_same_shape(x, dx, op);
    const gpu::Values in = device_values(x, op);
    const gpu::Values g = device_values(dy, op);
    const gpu::Values out = device_values(dx, op);
    gpu::for_each(x.size(), stream_, op,
                  [=] __device__(std::size_t i) { out.store(i, activation_grad(a, in[i], g[i])); });
}

void CudaBackend::accumulate(const Tensor& src, Tensor& dst, bool overwrite) {
    constexpr const char* op = "accumulate";
    gpu::require_same_shape(src, dst, op);
    const gpu::Values in = device_values(src, op);
    const gpu::Values out = device_values(dst, op);
    gpu::for_each(src.size(), stream_, op,
                  [=] __device__(std::size_t i) { out.store(i, overwrite ? in[i] : out[i] + in[i]); });
}

void CudaBackend::scale_in_place(Tensor& x, float factor) {
    constexpr const char* op = "scale_in_place";
    const gpu::Values v = device_values(x, op);
    gpu::for_each(x.size(), stream_, op, [=] __device__(std::size_t i) { v.store(i, v[i] * factor); });
}

}  // namespace plab
