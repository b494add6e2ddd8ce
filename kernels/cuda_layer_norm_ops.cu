// LayerNorm on the CUDA backend, FP32 (autocast's FP32 list), with the CPU's
// formulas and order (cpu_loss_ops.cpp): one thread per row for the row
// statistics and dx, one thread per column for dgamma and dbeta (rows in
// order). Every sum runs in the CPU's index order, sqrt and division are IEEE
// (no fast-math), no FMA: the results are the CPU's bit for bit. v1 keeps
// that simple shape; a warp per row is the step for rows much wider than the
// lab's 64 columns.
#include <cmath>
#include <string>

#include "engine/common/field_check.h"
#include "kernels/cuda_backend.h"
#include "kernels/cuda_common.cuh"

namespace plab {

using gpu::device_floats;
using gpu::require;

void CudaBackend::layer_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps, Tensor& y,
                                     Tensor& mean, Tensor& rstd) {
    constexpr const char* op = "layer_norm_forward";
    checks::require_layer_norm_forward(x, gamma, beta, eps, y, mean, rstd);
    const float* in = device_floats(x, op);
    const float* g = device_floats(gamma, op);
    const float* b = device_floats(beta, op);
    float* out = device_floats(y, op);
    float* mean_out = device_floats(mean, op);
    float* rstd_out = device_floats(rstd, op);
    const int cols = x.cols();
    const float n = static_cast<float>(cols);
    const FormatParams p = format_params(y.dtype());
    // Every element of a row is read before it is written: y may alias x.
    gpu::for_each(static_cast<std::size_t>(x.rows()), stream_, op, [=] __device__(std::size_t r) {
        const float* xr = in + r * cols;
        float* yr = out + r * cols;
        float m = 0.0f;
        for (int j = 0; j < cols; ++j) m += xr[j];
        m /= n;
        float squares = 0.0f;
        for (int j = 0; j < cols; ++j) {
            const float c = xr[j] - m;
            squares += c * c;
        }
        const float s = 1.0f / sqrtf(squares / n + eps);
        mean_out[r] = m;
        rstd_out[r] = s;
        for (int j = 0; j < cols; ++j) yr[j] = gpu::round_value(p, (xr[j] - m) * s * g[j] + b[j]);
    });
}

void CudaBackend::layer_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& mean, const Tensor& rstd,
                                      const Tensor& dy, Tensor& dx, Tensor& dgamma, Tensor& dbeta) {
    constexpr const char* op = "layer_norm_backward";
    checks::require_layer_norm_backward(x, gamma, mean, rstd, dy, dx, dgamma, dbeta);
    const float* in = device_floats(x, op);
    const float* g = device_floats(gamma, op);
    const float* mu = device_floats(mean, op);
    const float* rs = device_floats(rstd, op);
    const float* grad = device_floats(dy, op);
    float* out = device_floats(dx, op);
    float* dg = device_floats(dgamma, op);
    float* db = device_floats(dbeta, op);
    const int rows = x.rows();
    const int cols = x.cols();
    const auto stride = static_cast<std::size_t>(cols);

    // The parameter gradients first: dx may alias x or dy, which they read.
    // Each column accumulates over rows in row order in FP32 and is rounded once.
    const FormatParams pg = format_params(dgamma.dtype());
    const FormatParams pb = format_params(dbeta.dtype());
    gpu::for_each(stride, stream_, op, [=] __device__(std::size_t j) {
        float sum_dgamma = 0.0f, sum_dbeta = 0.0f;
        for (int i = 0; i < rows; ++i) {
            const std::size_t at = static_cast<std::size_t>(i) * stride + j;
            const float xhat = (in[at] - mu[i]) * rs[i];
            sum_dbeta += grad[at];
            sum_dgamma += grad[at] * xhat;
        }
        dg[j] = gpu::round_value(pg, sum_dgamma);
        db[j] = gpu::round_value(pb, sum_dbeta);
    });

    const float n = static_cast<float>(cols);
    const FormatParams p = format_params(dx.dtype());
    gpu::for_each(static_cast<std::size_t>(rows), stream_, op, [=] __device__(std::size_t r) {
        const float* xr = in + r * stride;
        const float* dyr = grad + r * stride;
        float* dxr = out + r * stride;
        const float mean_r = mu[r], rstd_r = rs[r];
        float sum_g = 0.0f, sum_g_xhat = 0.0f;
        for (int j = 0; j < cols; ++j) {
            const float xhat = (xr[j] - mean_r) * rstd_r;
            const float gj = dyr[j] * g[j];
            sum_g += gj;
            sum_g_xhat += gj * xhat;
        }
        const float mean_g = sum_g / n;
        const float mean_g_xhat = sum_g_xhat / n;
        for (int j = 0; j < cols; ++j) {
            const float xhat = (xr[j] - mean_r) * rstd_r;
            const float gj = dyr[j] * g[j];
            dxr[j] = gpu::round_value(p, rstd_r * (gj - mean_g - xhat * mean_g_xhat));
        }
    });
}

}  // namespace plab
