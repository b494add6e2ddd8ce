// LayerNorm on the CUDA backend, in FP32 on autocast's FP32 list and in the
// compute format's arithmetic off it, with the CPU's formulas
// (layer_norm_math.h) and order (cpu_loss_ops.cpp): one warp per row for the row
// statistics and dx (coalesced reads, sums in index order: cuda_common.cuh's
// ordered_warp_fold), one thread per column for dgamma and dbeta (rows in
// order; neighbouring threads read neighbouring columns). Every sum runs in
// the CPU's index order, sqrt and division are IEEE (no fast-math), no FMA:
// the results are the CPU's bit for bit.
#include <cmath>
#include <string>

#include "engine/common/field_check.h"
#include "engine/backend/layer_norm_math.h"
#include "kernels/cuda_backend.h"
#include "kernels/cuda_common.cuh"

namespace plab {

using gpu::device_floats;
using gpu::device_values;
using gpu::require;

void CudaBackend::layer_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps,
                                     FormatId compute, Tensor& y, Tensor& mean, Tensor& rstd) {
    constexpr const char* op = "layer_norm_forward";
    checks::require_layer_norm_forward(x, gamma, beta, eps, y, mean, rstd);
    const gpu::Values in = device_values(x, op);
    const gpu::Values g = device_values(gamma, op);
    const gpu::Values b = device_values(beta, op);
    const gpu::Values out = device_values(y, op);
    float* mean_out = device_floats(mean, op);
    float* rstd_out = device_floats(rstd, op);
    const int cols = x.cols();
    const float n = static_cast<float>(cols);
    const ComputeArithmetic a{compute};
    // Every element of a row is read (the sums) before any is written: y may alias x.
    gpu::for_each_warp(static_cast<std::size_t>(x.rows()), stream_, op, [=] __device__(std::size_t r, int lane) {
        const std::size_t first = r * cols;
        const auto xr = [=](int j) { return in[first + j]; };
        const auto add = [=](float sum, float term) { return norm_add(a, sum, term); };
        const float m = norm_mean(a, gpu::ordered_warp_fold(0, cols, 0.0f, xr, add), n);
        const float squares = gpu::ordered_warp_fold(
                0, cols, 0.0f, [=](int j) { return norm_square(a, norm_centred(a, xr(j), m)); }, add);
        const float s = norm_rstd(a, squares, n, eps);
        if (lane == 0) {
            mean_out[r] = m;
            rstd_out[r] = s;
        }
        for (int j = lane; j < cols; j += gpu::kWarp)
            out.store(first + j, norm_output(a, norm_xhat(a, xr(j), m, s), g[j], b[j]));
    });
}

void CudaBackend::layer_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& mean, const Tensor& rstd,
                                      const Tensor& dy, FormatId compute, Tensor& dx, Tensor& dgamma, Tensor& dbeta) {
    constexpr const char* op = "layer_norm_backward";
    checks::require_layer_norm_backward(x, gamma, mean, rstd, dy, dx, dgamma, dbeta);
    const gpu::Values in = device_values(x, op);
    const gpu::Values g = device_values(gamma, op);
    const float* mu = device_floats(mean, op);
    const float* rs = device_floats(rstd, op);
    const gpu::Values grad = device_values(dy, op);
    const gpu::Values out = device_values(dx, op);
    const gpu::Values dg = device_values(dgamma, op);
    const gpu::Values db = device_values(dbeta, op);
    const int rows = x.rows();
    const int cols = x.cols();
    const auto stride = static_cast<std::size_t>(cols);
    const ComputeArithmetic a{compute};

    // The parameter gradients first: dx may alias x or dy, which they read.
    // Each column accumulates over rows in row order and is rounded once more,
    // to its dtype.
    gpu::for_each(stride, stream_, op, [=] __device__(std::size_t j) {
        float sum_dgamma = 0.0f, sum_dbeta = 0.0f;
        for (int i = 0; i < rows; ++i) {
            const std::size_t at = static_cast<std::size_t>(i) * stride + j;
            const float xhat = norm_xhat(a, in[at], mu[i], rs[i]);
            sum_dbeta = norm_add(a, sum_dbeta, grad[at]);
            sum_dgamma = norm_add(a, sum_dgamma, a(grad[at] * xhat));
        }
        dg.store(j, sum_dgamma);
        db.store(j, sum_dbeta);
    });

    const float n = static_cast<float>(cols);
    gpu::for_each_warp(static_cast<std::size_t>(rows), stream_, op, [=] __device__(std::size_t r, int lane) {
        const std::size_t first = r * stride;
        const float mean_r = mu[r], rstd_r = rs[r];
        const auto xhat = [=](int j) { return norm_xhat(a, in[first + j], mean_r, rstd_r); };
        const auto gj = [=](int j) { return a(grad[first + j] * g[j]); };
        // Both sums in one pass, each in index order.
        const float2 sums = gpu::ordered_warp_fold(
            0, cols, make_float2(0.0f, 0.0f), [=](int j) { return make_float2(gj(j), a(gj(j) * xhat(j))); },
            [=](float2 s, float2 t) { return make_float2(norm_add(a, s.x, t.x), norm_add(a, s.y, t.y)); });
        const float mean_g = norm_mean(a, sums.x, n);
        const float mean_g_xhat = norm_mean(a, sums.y, n);
        for (int j = lane; j < cols; j += gpu::kWarp)
            out.store(first + j, norm_grad_input(a, rstd_r, gj(j), mean_g, xhat(j), mean_g_xhat));
    });
}

}  // namespace plab
