// MSE and LayerNorm on the CPU backend. Both are on autocast's FP32 list
// (docs/DESIGN.md, "Mixed precision semantics"): every intermediate is FP32 and
// every reduction runs in index order, so a run is bit-for-bit repeatable;
// only the outputs are rounded, once, to their tensors' dtypes. Off the list,
// each rounds every intermediate to its compute format instead
// (layer_norm_math.h, loss_math.h).
#include <algorithm>
#include <array>
#include <cmath>
#include <string>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/backend/cpu/cpu_tensor_ops.h"
#include "engine/backend/layer_norm_math.h"
#include "engine/backend/loss_math.h"
#include "engine/backend/op_checks.h"
#include "engine/common/error.h"
#include "engine/common/field_check.h"

namespace plab {

using cpu::require_same_shape;
using cpu::round_to_dtype;

float CpuBackend::mse_loss(const Tensor& pred, const Tensor& target, FormatId compute) {
    require_same_shape(pred, target, "mse_loss");
    const float* p = pred.host();
    const float* t = target.host();
    if (compute != FormatId::fp32) {
        const ComputeArithmetic r{compute};
        float total = 0.0f;
        for (std::size_t i = 0; i < pred.size(); ++i) total = loss_add(r, total, squared_error(r, p[i], t[i]));
        return loss_mean(r, total, static_cast<float>(pred.size()));
    }
    float sum = 0.0f;
    for (std::size_t i = 0; i < pred.size(); ++i) {
        const float d = p[i] - t[i];
        sum += d * d;
    }
    return pred.size() ? sum / static_cast<float>(pred.size()) : 0.0f;
}

void CpuBackend::mse_loss_into(const Tensor& pred, const Tensor& target, FormatId compute, Tensor& loss) {
    checks::require_scalar(loss, "mse_loss_into", "the loss");
    const float value = mse_loss(pred, target, compute);
    upload(&value, loss);
}

void CpuBackend::mse_loss_backward(const Tensor& pred, const Tensor& target, float scale, Tensor& dpred) {
    require_same_shape(pred, target, "mse_loss_backward");
    require_same_shape(pred, dpred, "mse_loss_backward");
    if (pred.size() == 0) return;
    // As PyTorch's mse_loss_backward: the factor 2 / size (one rounding to
    // FP32) times the incoming gradient, here the loss scale. Forming 2 * scale
    // first could overflow FP32 for a scale near its maximum.
    const float factor = static_cast<float>(2.0 / static_cast<double>(pred.size())) * scale;
    const float* p = pred.host();
    const float* t = target.host();
    float* d = dpred.host();
    for (std::size_t i = 0; i < pred.size(); ++i) d[i] = (p[i] - t[i]) * factor;
    round_to_dtype(dpred);
}

namespace {

// The forward runs over blocks of kRowBlock rows. Each row's sums still run
// in index order, so a row's results do not depend on its neighbours or on
// the batch size; but the block's independent chains of additions overlap in
// the pipeline instead of each waiting on the previous add (twice as fast on
// 64x64 and 256x256, docs/perf.md). In both directions every element a row
// reads is read before that element is written, so y may alias x and dx may
// alias x or dy.
constexpr int kRowBlock = 4;

// Per-row sums over j of f(r, j), each in index order, in `Arith`.
template <int R, typename Arith, typename F>
std::array<float, R> row_sums(Arith a, int cols, F f) {
    std::array<float, R> sum{};
    for (int j = 0; j < cols; ++j)
        for (int r = 0; r < R; ++r) sum[r] = norm_add(a, sum[r], f(r, j));
    return sum;
}

// The formulas are layer_norm_math.h's; Fp32Arithmetic compiles them to the
// plain FP32 loops, ComputeArithmetic rounds every step to the compute format.
template <int R, typename Arith>
void forward_rows(Arith a, const float* x, float* y, int cols, const float* gamma, const float* beta, float eps,
                  float* mean, float* rstd) {
    const float n = static_cast<float>(cols);
    std::array<float, R> m = row_sums<R>(a, cols, [&](int r, int j) { return x[r * cols + j]; });
    for (float& v : m) v = norm_mean(a, v, n);
    const std::array<float, R> squares = row_sums<R>(
            a, cols, [&](int r, int j) { return norm_square(a, norm_centred(a, x[r * cols + j], m[r])); });
    for (int r = 0; r < R; ++r) {
        const float s = norm_rstd(a, squares[r], n, eps);
        mean[r] = m[r];
        rstd[r] = s;
        for (int j = 0; j < cols; ++j)
            y[r * cols + j] = norm_output(a, norm_xhat(a, x[r * cols + j], m[r], s), gamma[j], beta[j]);
    }
}

template <typename Arith>
void forward_all_rows(Arith a, const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps, Tensor& y,
                      Tensor& mean, Tensor& rstd) {
    const int rows = x.rows(), cols = x.cols();
    const std::size_t stride = static_cast<std::size_t>(cols);
    int i = 0;
    for (; i + kRowBlock <= rows; i += kRowBlock)
        forward_rows<kRowBlock>(a, x.host() + i * stride, y.host() + i * stride, cols, gamma.host(), beta.host(), eps,
                                mean.host() + i, rstd.host() + i);
    for (; i < rows; ++i)
        forward_rows<1>(a, x.host() + i * stride, y.host() + i * stride, cols, gamma.host(), beta.host(), eps,
                        mean.host() + i, rstd.host() + i);
}

// One row of the backward. dgamma and dbeta accumulate across rows, in row
// order; the row's own sums run in index order. (Blocking rows as the
// forward does measured no faster here: these two chains already overlap.)
template <typename Arith>
void backward_row(Arith a, const float* x, const float* dy, float* dx, int cols, const float* gamma, float mean,
                  float rstd, float* dgamma, float* dbeta) {
    float sum_g = 0.0f, sum_g_xhat = 0.0f;
    for (int j = 0; j < cols; ++j) {
        const float xhat = norm_xhat(a, x[j], mean, rstd);
        const float g = a(dy[j] * gamma[j]);
        dbeta[j] = norm_add(a, dbeta[j], dy[j]);
        dgamma[j] = norm_add(a, dgamma[j], a(dy[j] * xhat));
        sum_g = norm_add(a, sum_g, g);
        sum_g_xhat = norm_add(a, sum_g_xhat, a(g * xhat));
    }
    const float n = static_cast<float>(cols);
    const float mean_g = norm_mean(a, sum_g, n);
    const float mean_g_xhat = norm_mean(a, sum_g_xhat, n);
    // xhat and g are recomputed (the same operations, so the same values)
    // instead of kept in a buffer.
    for (int j = 0; j < cols; ++j) {
        const float xhat = norm_xhat(a, x[j], mean, rstd);
        const float g = a(dy[j] * gamma[j]);
        dx[j] = norm_grad_input(a, rstd, g, mean_g, xhat, mean_g_xhat);
    }
}

template <typename Arith>
void backward_all_rows(Arith a, const Tensor& x, const Tensor& gamma, const Tensor& mean, const Tensor& rstd,
                       const Tensor& dy, Tensor& dx, Tensor& dgamma, Tensor& dbeta) {
    const int rows = x.rows(), cols = x.cols();
    const std::size_t stride = static_cast<std::size_t>(cols);
    // The parameter gradients accumulate over rows in their own FP32 storage
    // (as column_sums does; in the compute format's arithmetic off the FP32
    // list) and are rounded once more, to their dtypes, at the end.
    std::fill(dgamma.host(), dgamma.host() + cols, 0.0f);
    std::fill(dbeta.host(), dbeta.host() + cols, 0.0f);
    for (int i = 0; i < rows; ++i)
        backward_row(a, x.host() + i * stride, dy.host() + i * stride, dx.host() + i * stride, cols, gamma.host(),
                     mean.host()[i], rstd.host()[i], dgamma.host(), dbeta.host());
}

}  // namespace

void CpuBackend::layer_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, float eps,
                                    FormatId compute, Tensor& y, Tensor& mean, Tensor& rstd) {
    checks::require_layer_norm_forward(x, gamma, beta, eps, y, mean, rstd);
    in_arithmetic(compute, [&](auto a) { forward_all_rows(a, x, gamma, beta, eps, y, mean, rstd); });
    round_to_dtype(y);
}

void CpuBackend::layer_norm_backward(const Tensor& x, const Tensor& gamma, const Tensor& mean, const Tensor& rstd,
                                     const Tensor& dy, FormatId compute, Tensor& dx, Tensor& dgamma, Tensor& dbeta) {
    checks::require_layer_norm_backward(x, gamma, mean, rstd, dy, dx, dgamma, dbeta);
    in_arithmetic(compute, [&](auto a) { backward_all_rows(a, x, gamma, mean, rstd, dy, dx, dgamma, dbeta); });
    round_to_dtype(dx);
    round_to_dtype(dgamma);
    round_to_dtype(dbeta);
}

}  // namespace plab
