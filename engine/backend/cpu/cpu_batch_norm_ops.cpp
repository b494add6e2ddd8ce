// BatchNorm on the CPU backend: in FP32 on autocast's FP32 list, in the
// compute format's arithmetic off it, with batch_norm_math.h's formulas. Each
// column's sums run in row order; the loops walk rows outside and columns
// inside, so every column keeps its own chains of additions (the order a
// thread per column keeps on the GPU) while a row is read contiguously.
#include <algorithm>
#include <vector>

#include "engine/backend/batch_norm_math.h"
#include "engine/backend/cpu/cpu_backend.h"
#include "engine/backend/cpu/cpu_tensor_ops.h"
#include "engine/backend/op_checks.h"

namespace plab {

using cpu::round_to_dtype;

namespace {

// sums[j] folded with term(i, j) for i = 0, 1, ..., rows - 1, in `Arith`.
template <typename Arith, typename Term>
void column_sums_in_row_order(Arith a, int rows, int cols, float* sums, Term term) {
    std::fill(sums, sums + cols, 0.0f);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) sums[j] = norm_add(a, sums[j], term(i, j));
}

template <typename Arith>
void forward_columns(Arith a, const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps, float momentum,
                     Tensor& y, Tensor& mean, Tensor& rstd, Tensor& running_mean, Tensor& running_var) {
    const int rows = x.rows(), cols = x.cols();
    const float n = static_cast<float>(rows);
    const float* in = x.host();
    const auto at = [cols](int i, int j) { return static_cast<std::size_t>(i) * cols + j; };
    // mean's and rstd's storage hold the column sums until they become the statistics.
    float* m = mean.host();
    float* s = rstd.host();
    std::fill(m, m + cols, 0.0f);
    std::fill(s, s + cols, 0.0f);
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) {
            m[j] = norm_add(a, m[j], in[at(i, j)]);
            s[j] = norm_add(a, s[j], norm_square(a, in[at(i, j)]));
        }
    float* rm = running_mean.host();
    float* rv = running_var.host();
    for (int j = 0; j < cols; ++j) {
        m[j] = norm_mean(a, m[j], n);
        const float var = norm_variance(a, norm_mean(a, s[j], n), m[j]);
        rm[j] = running_blend(rm[j], m[j], momentum);
        rv[j] = running_blend(rv[j], norm_unbiased_variance(a, var, n), momentum);
        s[j] = norm_rstd_of_variance(a, var, eps);
    }
    // Every element was read above: y may alias x.
    const float* g = gamma.host();
    const float* b = beta.host();
    float* out = y.host();
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j)
            out[at(i, j)] = norm_output(a, norm_xhat(a, in[at(i, j)], m[j], s[j]), g[j], b[j]);
}

template <typename Arith>
void inference_columns(Arith a, const Tensor& x, const Tensor& gamma, const Tensor& beta, const Tensor& running_mean,
                       const Tensor& running_var, float eps, Tensor& y) {
    const int rows = x.rows(), cols = x.cols();
    std::vector<float> rstd(static_cast<std::size_t>(cols));
    for (int j = 0; j < cols; ++j) rstd[j] = norm_rstd_of_variance(a, running_var.host()[j], eps);
    const float* in = x.host();
    const float* rm = running_mean.host();
    const float* g = gamma.host();
    const float* b = beta.host();
    float* out = y.host();
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j) {
            const std::size_t k = static_cast<std::size_t>(i) * cols + j;
            out[k] = norm_output(a, norm_xhat(a, in[k], rm[j], rstd[j]), g[j], b[j]);
        }
}

template <typename Arith>
void backward_columns(Arith a, const Tensor& x, const Tensor& gamma, const Tensor& mean, const Tensor& rstd,
                      const Tensor& dy, Tensor& dx, Tensor& dgamma, Tensor& dbeta) {
    const int rows = x.rows(), cols = x.cols();
    const float n = static_cast<float>(rows);
    const float* in = x.host();
    const float* d = dy.host();
    const float* g = gamma.host();
    const float* m = mean.host();
    const float* s = rstd.host();
    const auto at = [cols](int i, int j) { return static_cast<std::size_t>(i) * cols + j; };
    // xhat and g * dy are recomputed where needed (the same operations, so
    // the same values) instead of kept in buffers.
    const auto xhat = [&](int i, int j) { return norm_xhat(a, in[at(i, j)], m[j], s[j]); };
    const auto scaled = [&](int i, int j) { return a(d[at(i, j)] * g[j]); };
    // The parameter gradients accumulate in their own FP32 storage (in the
    // compute format's arithmetic off the FP32 list) and are rounded once
    // more, to their dtypes, at the end.
    column_sums_in_row_order(a, rows, cols, dbeta.host(), [&](int i, int j) { return d[at(i, j)]; });
    column_sums_in_row_order(a, rows, cols, dgamma.host(), [&](int i, int j) { return a(d[at(i, j)] * xhat(i, j)); });
    std::vector<float> mean_g(static_cast<std::size_t>(cols)), mean_g_xhat(static_cast<std::size_t>(cols));
    column_sums_in_row_order(a, rows, cols, mean_g.data(), scaled);
    column_sums_in_row_order(a, rows, cols, mean_g_xhat.data(),
                             [&](int i, int j) { return a(scaled(i, j) * xhat(i, j)); });
    for (int j = 0; j < cols; ++j) {
        mean_g[j] = norm_mean(a, mean_g[j], n);
        mean_g_xhat[j] = norm_mean(a, mean_g_xhat[j], n);
    }
    // Every sum is taken: dx may alias x or dy.
    float* out = dx.host();
    for (int i = 0; i < rows; ++i)
        for (int j = 0; j < cols; ++j)
            out[at(i, j)] = norm_grad_input(a, s[j], scaled(i, j), mean_g[j], xhat(i, j), mean_g_xhat[j]);
}

}  // namespace

void CpuBackend::batch_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps,
                                    float momentum, FormatId compute, Tensor& y, Tensor& mean, Tensor& rstd,
                                    Tensor& running_mean, Tensor& running_var) {
    checks::require_batch_norm_forward(x, gamma, beta, eps, momentum, y, mean, rstd, running_mean, running_var);
    in_arithmetic(compute, [&](auto a) {
        forward_columns(a, x, gamma, beta, eps, momentum, y, mean, rstd, running_mean, running_var);
    });
    round_to_dtype(y);
}

void CpuBackend::batch_norm_inference(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                      const Tensor& running_mean, const Tensor& running_var, float eps,
                                      FormatId compute, Tensor& y) {
    checks::require_batch_norm_inference(x, gamma, beta, running_mean, running_var, eps, y);
    in_arithmetic(compute, [&](auto a) { inference_columns(a, x, gamma, beta, running_mean, running_var, eps, y); });
    round_to_dtype(y);
}

void CpuBackend::batch_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& mean, const Tensor& rstd,
                                     const Tensor& dy, FormatId compute, Tensor& dx, Tensor& dgamma, Tensor& dbeta) {
    checks::require_batch_norm_backward(x, gamma, mean, rstd, dy, dx, dgamma, dbeta);
    in_arithmetic(compute, [&](auto a) { backward_columns(a, x, gamma, mean, rstd, dy, dx, dgamma, dbeta); });
    round_to_dtype(dx);
    round_to_dtype(dgamma);
    round_to_dtype(dbeta);
}

}  // namespace plab
