// BatchNorm on the CUDA backend, in FP32 on autocast's FP32 list and in the
// compute format's arithmetic off it, with the CPU's formulas
// (batch_norm_math.h) and order (cpu_batch_norm_ops.cpp): one thread per
// column walks the rows in order for the column's sums, so neighbouring
// threads read neighbouring columns (coalesced) and every sum is the CPU's.
// sqrt and division are IEEE (no fast-math), no FMA: the results are the
// CPU's bit for bit.
#include <cmath>

#include "engine/backend/batch_norm_math.h"
#include "engine/backend/op_checks.h"
#include "kernels/cuda_backend.h"
#include "kernels/cuda_common.cuh"

namespace plab {

using gpu::device_floats;
using gpu::device_values;

void CudaBackend::batch_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps,
                                     float momentum, FormatId compute, Tensor& y, Tensor& mean, Tensor& rstd,
                                     Tensor& running_mean, Tensor& running_var) {
    constexpr const char* op = "batch_norm_forward";
    checks::require_batch_norm_forward(x, gamma, beta, eps, momentum, y, mean, rstd, running_mean, running_var);
    const gpu::Values in = device_values(x, op);
    const gpu::Values g = device_values(gamma, op);
    const gpu::Values b = device_values(beta, op);
    const gpu::Values out = device_values(y, op);
    float* mean_out = device_floats(mean, op);
    float* rstd_out = device_floats(rstd, op);
    float* rm = device_floats(running_mean, op);
    float* rv = device_floats(running_var, op);
    const int rows = x.rows();
    const auto cols = static_cast<std::size_t>(x.cols());
    const float n = static_cast<float>(rows);
    const ComputeArithmetic a{compute};
    // A thread reads its whole column (the sums) before it writes any of it: y may alias x.
    gpu::for_each(cols, stream_, op, [=] __device__(std::size_t j) {
        float sum = 0.0f, squares = 0.0f;
        for (int i = 0; i < rows; ++i) {
            const float v = in[i * cols + j];
            sum = norm_add(a, sum, v);
            squares = norm_add(a, squares, norm_square(a, v));
        }
        const float m = norm_mean(a, sum, n);
        const float var = norm_variance(a, norm_mean(a, squares, n), m);
        const float s = norm_rstd_of_variance(a, var, eps);
        mean_out[j] = m;
        rstd_out[j] = s;
        rm[j] = running_blend(rm[j], m, momentum);
        rv[j] = running_blend(rv[j], norm_unbiased_variance(a, var, n), momentum);
        for (int i = 0; i < rows; ++i)
            out.store(i * cols + j, norm_output(a, norm_xhat(a, in[i * cols + j], m, s), g[j], b[j]));
    });
}

void CudaBackend::batch_norm_inference(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                       const Tensor& running_mean, const Tensor& running_var, float eps,
                                       FormatId compute, Tensor& y) {
    constexpr const char* op = "batch_norm_inference";
    checks::require_batch_norm_inference(x, gamma, beta, running_mean, running_var, eps, y);
    const gpu::Values in = device_values(x, op);
    const gpu::Values g = device_values(gamma, op);
    const gpu::Values b = device_values(beta, op);
    const gpu::Values out = device_values(y, op);
    const float* rm = device_floats(running_mean, op);
    const float* rv = device_floats(running_var, op);
    const auto cols = static_cast<std::size_t>(x.cols());
    const ComputeArithmetic a{compute};
    gpu::for_each(x.size(), stream_, op, [=] __device__(std::size_t k) {
        const std::size_t j = k % cols;
        const float s = norm_rstd_of_variance(a, rv[j], eps);
        out.store(k, norm_output(a, norm_xhat(a, in[k], rm[j], s), g[j], b[j]));
    });
}

void CudaBackend::batch_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& mean, const Tensor& rstd,
                                      const Tensor& dy, FormatId compute, Tensor& dx, Tensor& dgamma,
                                      Tensor& dbeta) {
    constexpr const char* op = "batch_norm_backward";
    checks::require_batch_norm_backward(x, gamma, mean, rstd, dy, dx, dgamma, dbeta);
    const gpu::Values in = device_values(x, op);
    const gpu::Values g = device_values(gamma, op);
    const float* mu = device_floats(mean, op);
    const float* rs = device_floats(rstd, op);
    const gpu::Values grad = device_values(dy, op);
    const gpu::Values out = device_values(dx, op);
    const gpu::Values dg = device_values(dgamma, op);
    const gpu::Values db = device_values(dbeta, op);
    const int rows = x.rows();
    const auto cols = static_cast<std::size_t>(x.cols());
    const float n = static_cast<float>(rows);
    const ComputeArithmetic a{compute};
    // A thread takes all its column's sums before it writes dx: dx may alias x or dy.
    gpu::for_each(cols, stream_, op, [=] __device__(std::size_t j) {
        const float m = mu[j], s = rs[j], gamma_j = g[j];
        const auto xhat = [=](int i) { return norm_xhat(a, in[i * cols + j], m, s); };
        const auto scaled = [=](int i) { return a(grad[i * cols + j] * gamma_j); };
        float sum_dbeta = 0.0f, sum_dgamma = 0.0f, sum_g = 0.0f, sum_g_xhat = 0.0f;
        for (int i = 0; i < rows; ++i) {
            sum_dbeta = norm_add(a, sum_dbeta, grad[i * cols + j]);
            sum_dgamma = norm_add(a, sum_dgamma, a(grad[i * cols + j] * xhat(i)));
            sum_g = norm_add(a, sum_g, scaled(i));
            sum_g_xhat = norm_add(a, sum_g_xhat, a(scaled(i) * xhat(i)));
        }
        // Rounded once more, to their dtypes, as the CPU's are.
        dg.store(j, sum_dgamma);
        db.store(j, sum_dbeta);
        const float mean_g = norm_mean(a, sum_g, n);
        const float mean_g_xhat = norm_mean(a, sum_g_xhat, n);
        for (int i = 0; i < rows; ++i)
            out.store(i * cols + j, norm_grad_input(a, s, scaled(i), mean_g, xhat(i), mean_g_xhat));
    });
}

}  // namespace plab
