// LayerNorm on the CUDA backend, FP32 (autocast's FP32 list), with the CPU's
// formulas and order (cpu_loss_ops.cpp): one warp per row for the row
// statistics and dx (coalesced reads, sums in index order: cuda_common.cuh's
// ordered_warp_fold), one thread per column for dgamma and dbeta (rows in
// order; neighbouring threads read neighbouring columns). Every sum runs in
// the CPU's index order, sqrt and division are IEEE (no fast-math), no FMA:
// the results are the CPU's bit for bit.
#include <cmath>
#include <string>

#include "engine/common/field_check.h"
#include "kernels/cuda_backend.h"
#include "kernels/cuda_common.cuh"

namespace plab {

using gpu::device_floats;
using gpu::device_values;
using gpu::require;

void CudaBackend::layer_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps, Tensor& y,
                                     Tensor& mean, Tensor& rstd) {
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
    // Every element of a row is read (the sums) before any is written: y may alias x.
    gpu::for_each_warp(static_cast<std::size_t>(x.rows()), stream_, op, [=] __device__(std::size_t r, int lane) {
        const std::size_t first = r * cols;
        const auto xr = [=](int j) { return in[first + j]; };
        const float m = gpu::ordered_warp_sum(cols, xr) / n;
        const float squares = gpu::ordered_warp_sum(cols, [=](int j) {
            const float c = xr(j) - m;
            return c * c;
        });
        const float s = 1.0f / sqrtf(squares / n + eps);
        if (lane == 0) {
            mean_out[r] = m;
            rstd_out[r] = s;
        }
        for (int j = lane; j < cols; j += gpu::kWarp) out.store(first + j, (xr(j) - m) * s * g[j] + b[j]);
    });
}

void CudaBackend::layer_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& mean, const Tensor& rstd,
                                      const Tensor& dy, Tensor& dx, Tensor& dgamma, Tensor& dbeta) {
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

    // The parameter gradients first: dx may alias x or dy, which they read.
    // Each column accumulates over rows in row order in FP32 and is rounded once.
    gpu::for_each(stride, stream_, op, [=] __device__(std::size_t j) {
        float sum_dgamma = 0.0f, sum_dbeta = 0.0f;
        for (int i = 0; i < rows; ++i) {
            const std::size_t at = static_cast<std::size_t>(i) * stride + j;
            const float xhat = (in[at] - mu[i]) * rs[i];
            sum_dbeta += grad[at];
            sum_dgamma += grad[at] * xhat;
        }
        dg.store(j, sum_dgamma);
        db.store(j, sum_dbeta);
    });

    const float n = static_cast<float>(cols);
    gpu::for_each_warp(static_cast<std::size_t>(rows), stream_, op, [=] __device__(std::size_t r, int lane) {
        const std::size_t first = r * stride;
        const auto xr = [=](int j) { return in[first + j]; };
        const auto dyr = [=](int j) { return grad[first + j]; };
        const float mean_r = mu[r], rstd_r = rs[r];
        // Both sums in one pass, each in index order.
        const float2 sums = gpu::ordered_warp_fold(
            0, cols, make_float2(0.0f, 0.0f),
            [=](int j) {
                const float xhat = (xr(j) - mean_r) * rstd_r;
                const float gj = dyr(j) * g[j];
                return make_float2(gj, gj * xhat);
            },
            [](float2 a, float2 t) { return make_float2(a.x + t.x, a.y + t.y); });
        const float mean_g = sums.x / n;
        const float mean_g_xhat = sums.y / n;
        for (int j = lane; j < cols; j += gpu::kWarp) {
            const float xhat = (xr(j) - mean_r) * rstd_r;
            const float gj = dyr(j) * g[j];
            out.store(first + j, rstd_r * (gj - mean_g - xhat * mean_g_xhat));
        }
    });
}

}  // namespace plab
