// The CPU backend's LayerNorm against an FP64 implementation written plainly
// here, and its backward also against central finite differences of that
// FP64 forward.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "error_text.h"
#include "engine/backend/cpu/cpu_backend.h"
#include "engine/common/error.h"
#include "engine/numeric/scalar_cast.h"
#include "stepwise_rounding.h"

namespace plab {
namespace {

constexpr float kEps = 1e-5f;

// ---------------------------------------------------------------------------
// FP64 reference, row-major rows x cols.

struct Problem {
    int rows = 0, cols = 0;
    std::vector<float> x, gamma, beta, dy;
};

std::vector<double> widen(const std::vector<float>& v) { return {v.begin(), v.end()}; }

std::vector<double> ref_forward(const Problem& p, const std::vector<double>& x, const std::vector<double>& gamma,
                                const std::vector<double>& beta) {
    std::vector<double> y(x.size());
    for (int i = 0; i < p.rows; ++i) {
        double mean = 0;
        for (int j = 0; j < p.cols; ++j) mean += x[i * p.cols + j];
        mean /= p.cols;
        double var = 0;
        for (int j = 0; j < p.cols; ++j) var += (x[i * p.cols + j] - mean) * (x[i * p.cols + j] - mean);
        var /= p.cols;
        const double rstd = 1.0 / std::sqrt(var + static_cast<double>(kEps));
        for (int j = 0; j < p.cols; ++j) y[i * p.cols + j] = (x[i * p.cols + j] - mean) * rstd * gamma[j] + beta[j];
    }
    return y;
}

struct Grads {
    std::vector<double> dx, dgamma, dbeta;
};

// The textbook backward, from x (mean and rstd recomputed in FP64).
Grads ref_backward(const Problem& p) {
    Grads g{std::vector<double>(p.x.size()), std::vector<double>(p.cols), std::vector<double>(p.cols)};
    for (int i = 0; i < p.rows; ++i) {
        std::vector<double> xhat(p.cols), gy(p.cols);
        double mean = 0, var = 0;
        for (int j = 0; j < p.cols; ++j) mean += p.x[i * p.cols + j];
        mean /= p.cols;
        for (int j = 0; j < p.cols; ++j) var += std::pow(p.x[i * p.cols + j] - mean, 2);
        const double rstd = 1.0 / std::sqrt(var / p.cols + static_cast<double>(kEps));
        double mean_g = 0, mean_gx = 0;
        for (int j = 0; j < p.cols; ++j) {
            xhat[j] = (p.x[i * p.cols + j] - mean) * rstd;
            gy[j] = static_cast<double>(p.dy[i * p.cols + j]) * p.gamma[j];
            g.dbeta[j] += p.dy[i * p.cols + j];
            g.dgamma[j] += p.dy[i * p.cols + j] * xhat[j];
            mean_g += gy[j] / p.cols;
            mean_gx += gy[j] * xhat[j] / p.cols;
        }
        for (int j = 0; j < p.cols; ++j) g.dx[i * p.cols + j] = rstd * (gy[j] - mean_g - xhat[j] * mean_gx);
    }
    return g;
}

// Rows with different means and spreads, gamma and beta away from 1 and 0.
Problem make_problem(int rows, int cols, std::uint32_t seed) {
    std::mt19937 rng(seed);
    auto uniform = [&](float lo, float hi) { return lo + (hi - lo) * static_cast<float>(rng() % 100001) / 1e5f; };
    Problem p{rows, cols, {}, {}, {}, {}};
    for (int i = 0; i < rows; ++i) {
        const float offset = uniform(-3.0f, 3.0f), spread = uniform(0.3f, 2.0f);
        for (int j = 0; j < cols; ++j) p.x.push_back(offset + spread * uniform(-1.0f, 1.0f));
    }
    for (int j = 0; j < cols; ++j) {
        p.gamma.push_back(uniform(0.5f, 1.5f));
        p.beta.push_back(uniform(-0.5f, 0.5f));
    }
    for (int k = 0; k < rows * cols; ++k) p.dy.push_back(uniform(-1.0f, 1.0f));
    return p;
}

// ---------------------------------------------------------------------------
// The backend under test.

struct Outputs {
    Tensor y, mean, rstd, dx, dgamma, dbeta;
};

Tensor make(CpuBackend& be, Shape s, const std::vector<float>& values, FormatId dtype = FormatId::fp32) {
    Tensor t = be.allocate(s, dtype);
    be.upload(values.data(), t);
    return t;
}

Outputs run(CpuBackend& be, const Problem& p, FormatId out_dtype = FormatId::fp32,
            FormatId param_grad_dtype = FormatId::fp32, FormatId compute = FormatId::fp32) {
    const Tensor x = make(be, {p.rows, p.cols}, p.x);
    const Tensor gamma = make(be, {1, p.cols}, p.gamma);
    const Tensor beta = make(be, {1, p.cols}, p.beta);
    const Tensor dy = make(be, {p.rows, p.cols}, p.dy);
    Outputs o{be.allocate({p.rows, p.cols}, out_dtype),     be.allocate({p.rows, 1}, FormatId::fp32),
              be.allocate({p.rows, 1}, FormatId::fp32),     be.allocate({p.rows, p.cols}, out_dtype),
              be.allocate({1, p.cols}, param_grad_dtype), be.allocate({1, p.cols}, param_grad_dtype)};
    be.layer_norm_forward(x, gamma, beta, kEps, compute, o.y, o.mean, o.rstd);
    be.layer_norm_backward(x, gamma, o.mean, o.rstd, dy, compute, o.dx, o.dgamma, o.dbeta);
    return o;
}

double max_abs(const std::vector<double>& v) {
    double m = 0;
    for (double x : v) m = std::max(m, std::abs(x));
    return m;
}

// |got - want| <= rel * (|want| + floor): relative, with a floor for entries
// that cancel to near zero (their FP32 error is set by the terms that cancelled).
void expect_close(const Tensor& got, const std::vector<double>& want, double rel, double floor, const char* what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (std::size_t k = 0; k < want.size(); ++k)
        EXPECT_LE(std::abs(got.host()[k] - want[k]), rel * (std::abs(want[k]) + floor))
            << what << "[" << k << "]: got " << got.host()[k] << ", want " << want[k];
}

TEST(LayerNorm, ForwardMatchesFp64Reference) {
    CpuBackend be;
    const Problem p = make_problem(16, 24, 1);
    const Outputs o = run(be, p);
    const std::vector<double> want = ref_forward(p, widen(p.x), widen(p.gamma), widen(p.beta));
    expect_close(o.y, want, 1e-5, 0.1 * max_abs(want), "y");
    for (int i = 0; i < p.rows; ++i) {
        double mean = 0, var = 0;
        for (int j = 0; j < p.cols; ++j) mean += p.x[i * p.cols + j];
        mean /= p.cols;
        for (int j = 0; j < p.cols; ++j) var += std::pow(p.x[i * p.cols + j] - mean, 2);
        const double rstd = 1.0 / std::sqrt(var / p.cols + static_cast<double>(kEps));
        EXPECT_NEAR(o.mean.host()[i], mean, 1e-6 * (std::abs(mean) + 1)) << "row " << i;
        EXPECT_NEAR(o.rstd.host()[i], rstd, 1e-6 * rstd) << "row " << i;
    }
}

TEST(LayerNorm, BackwardMatchesFp64Reference) {
    CpuBackend be;
    const Problem p = make_problem(16, 24, 2);
    const Outputs o = run(be, p);
    const Grads want = ref_backward(p);
    expect_close(o.dx, want.dx, 1e-5, 0.1 * max_abs(want.dx), "dx");
    expect_close(o.dgamma, want.dgamma, 1e-5, 0.1 * max_abs(want.dgamma), "dgamma");
    expect_close(o.dbeta, want.dbeta, 1e-5, 0.1 * max_abs(want.dbeta), "dbeta");
}

// L = sum_ij dy_ij * y_ij (a random projection of the output) has gradient
// dy with respect to y, so the backward of dy must be dL/d(x, gamma, beta),
// estimated here by central differences of the FP64 forward.
TEST(LayerNorm, BackwardMatchesFiniteDifferences) {
    CpuBackend be;
    const Problem p = make_problem(8, 12, 3);
    const Outputs o = run(be, p);
    std::vector<double> x = widen(p.x), gamma = widen(p.gamma), beta = widen(p.beta);
    auto loss = [&] {
        const std::vector<double> y = ref_forward(p, x, gamma, beta);
        double l = 0;
        for (std::size_t k = 0; k < y.size(); ++k) l += p.dy[k] * y[k];
        return l;
    };
    auto check = [&](std::vector<double>& v, const Tensor& grad, const char* what) {
        std::vector<double> numeric(v.size());
        for (std::size_t k = 0; k < v.size(); ++k) {
            const double keep = v[k], h = 1e-5;
            v[k] = keep + h;
            const double up = loss();
            v[k] = keep - h;
            const double down = loss();
            v[k] = keep;
            numeric[k] = (up - down) / (2 * h);
        }
        expect_close(grad, numeric, 1e-5, 0.1 * max_abs(numeric), what);
    };
    check(x, o.dx, "dx");
    check(gamma, o.dgamma, "dgamma");
    check(beta, o.dbeta, "dbeta");
}

// A constant row has variance 0: rstd = 1/sqrt(eps) stays finite, the row
// normalises to exactly 0 so y = beta, and dx stays finite.
TEST(LayerNorm, ConstantRowStaysFinite) {
    CpuBackend be;
    Problem p = make_problem(3, 10, 4);
    std::fill(p.x.begin() + 10, p.x.begin() + 20, 3.25f);
    const Outputs o = run(be, p);
    EXPECT_EQ(o.mean.host()[1], 3.25f);
    EXPECT_NEAR(o.rstd.host()[1], 1.0 / std::sqrt(static_cast<double>(kEps)), 1e-6 * o.rstd.host()[1]);
    for (int j = 0; j < p.cols; ++j) EXPECT_EQ(o.y.host()[10 + j], p.beta[j]) << j;
    for (std::size_t k = 0; k < o.dx.size(); ++k) EXPECT_TRUE(std::isfinite(o.dx.host()[k])) << k;
    const Grads want = ref_backward(p);
    expect_close(o.dx, want.dx, 1e-5, 0.1 * max_abs(want.dx), "dx");
    expect_close(o.dgamma, want.dgamma, 1e-5, 0.1 * max_abs(want.dgamma), "dgamma");
}

// Low-precision outputs are the FP32 results rounded once: the arithmetic
// stays FP32 whatever the output dtype. One column of gamma is large enough
// to overflow FP16 (Inf), the others land on FP16's grid.
TEST(LayerNorm, LowPrecisionOutputsAreTheFp32ResultsRounded) {
    CpuBackend be;
    Problem p = make_problem(6, 16, 5);
    p.gamma[3] = 1e5f;
    const Outputs f32 = run(be, p);
    const Outputs low = run(be, p, FormatId::fp16, FormatId::bf16);
    auto expect_rounded = [](const Tensor& got, const Tensor& exact, FormatId f, const char* what) {
        for (std::size_t k = 0; k < got.size(); ++k)
            EXPECT_EQ(got.host()[k], round_to(f, exact.host()[k])) << what << "[" << k << "]";
    };
    expect_rounded(low.y, f32.y, FormatId::fp16, "y");
    expect_rounded(low.dx, f32.dx, FormatId::fp16, "dx");
    expect_rounded(low.dgamma, f32.dgamma, FormatId::bf16, "dgamma");
    expect_rounded(low.dbeta, f32.dbeta, FormatId::bf16, "dbeta");
    expect_rounded(low.mean, f32.mean, FormatId::fp32, "mean");
    expect_rounded(low.rstd, f32.rstd, FormatId::fp32, "rstd");
    EXPECT_TRUE(std::isinf(low.y.host()[3]));  // |xhat| * 1e5 > 65504 for a typical row element
}

TEST(LayerNorm, InPlaceForwardMatchesOutOfPlace) {
    CpuBackend be;
    const Problem p = make_problem(4, 9, 6);
    const Outputs o = run(be, p);
    Tensor x = make(be, {p.rows, p.cols}, p.x);
    Tensor mean = be.allocate({p.rows, 1}, FormatId::fp32), rstd = be.allocate({p.rows, 1}, FormatId::fp32);
    be.layer_norm_forward(x, make(be, {1, p.cols}, p.gamma), make(be, {1, p.cols}, p.beta), kEps, FormatId::fp32, x, mean,
                          rstd);
    for (std::size_t k = 0; k < x.size(); ++k) EXPECT_EQ(x.host()[k], o.y.host()[k]) << k;
}

// A row's results depend on that row alone, bit for bit, whatever its
// neighbours and the batch size (7 rows: a block of 4 and 3 single rows).
TEST(LayerNorm, RowResultsDoNotDependOnTheBatch) {
    CpuBackend be;
    const Problem p = make_problem(7, 33, 7);
    const Outputs all = run(be, p);
    for (int i = 0; i < p.rows; ++i) {
        Problem one = p;
        one.rows = 1;
        one.x.assign(p.x.begin() + i * p.cols, p.x.begin() + (i + 1) * p.cols);
        one.dy.assign(p.dy.begin() + i * p.cols, p.dy.begin() + (i + 1) * p.cols);
        const Outputs single = run(be, one);
        EXPECT_EQ(single.mean.host()[0], all.mean.host()[i]) << "row " << i;
        EXPECT_EQ(single.rstd.host()[0], all.rstd.host()[i]) << "row " << i;
        for (int j = 0; j < p.cols; ++j) {
            EXPECT_EQ(single.y.host()[j], all.y.host()[i * p.cols + j]) << "row " << i << ", col " << j;
            EXPECT_EQ(single.dx.host()[j], all.dx.host()[i * p.cols + j]) << "row " << i << ", col " << j;
        }
    }
}

TEST(LayerNorm, InPlaceBackwardMatchesOutOfPlace) {
    CpuBackend be;
    const Problem p = make_problem(5, 9, 8);
    const Outputs o = run(be, p);
    const Tensor x = make(be, {p.rows, p.cols}, p.x), gamma = make(be, {1, p.cols}, p.gamma);
    Tensor dy = make(be, {p.rows, p.cols}, p.dy);
    Tensor dgamma = be.allocate({1, p.cols}, FormatId::fp32), dbeta = be.allocate({1, p.cols}, FormatId::fp32);
    be.layer_norm_backward(x, gamma, o.mean, o.rstd, dy, FormatId::fp32, dy, dgamma, dbeta);
    for (std::size_t k = 0; k < dy.size(); ++k) EXPECT_EQ(dy.host()[k], o.dx.host()[k]) << k;
    for (int j = 0; j < p.cols; ++j) EXPECT_EQ(dgamma.host()[j], o.dgamma.host()[j]) << j;
}

// ---------------------------------------------------------------------------
// Off the FP32 list: every step in the compute format's arithmetic, against
// a reference that rounds with casts the lab did not write (stepwise_rounding.h).

using testing_support::rounded_by_compiler_fp16;
using testing_support::rounded_to_nearest_bf16;
using testing_support::Rounding;

struct StepwiseOutputs {
    std::vector<float> y, mean, rstd, dx, dgamma, dbeta;
};

// The textbook LayerNorm, each operation rounded with `r`, sums in index order.
StepwiseOutputs stepwise(const Problem& p, Rounding r) {
    const int n = p.cols;
    const float fn = static_cast<float>(n);
    StepwiseOutputs o{std::vector<float>(p.x.size()), {}, {}, std::vector<float>(p.x.size()),
                      std::vector<float>(n, 0.0f), std::vector<float>(n, 0.0f)};
    for (int i = 0; i < p.rows; ++i) {
        const float* x = p.x.data() + i * n;
        const float* dy = p.dy.data() + i * n;
        float sum = 0;
        for (int j = 0; j < n; ++j) sum = r(sum + x[j]);
        const float mean = r(sum / fn);
        float squares = 0;
        for (int j = 0; j < n; ++j) {
            const float c = r(x[j] - mean);
            squares = r(squares + r(c * c));
        }
        const float rstd = r(1.0f / r(std::sqrt(r(r(squares / fn) + kEps))));
        o.mean.push_back(mean);
        o.rstd.push_back(rstd);
        std::vector<float> xhat(n), g(n);
        float sum_g = 0, sum_gx = 0;
        for (int j = 0; j < n; ++j) {
            xhat[j] = r(r(x[j] - mean) * rstd);
            o.y[i * n + j] = r(r(xhat[j] * p.gamma[j]) + p.beta[j]);
            g[j] = r(dy[j] * p.gamma[j]);
            o.dbeta[j] = r(o.dbeta[j] + dy[j]);
            o.dgamma[j] = r(o.dgamma[j] + r(dy[j] * xhat[j]));
            sum_g = r(sum_g + g[j]);
            sum_gx = r(sum_gx + r(g[j] * xhat[j]));
        }
        const float mean_g = r(sum_g / fn), mean_gx = r(sum_gx / fn);
        for (int j = 0; j < n; ++j) o.dx[i * n + j] = r(rstd * r(r(g[j] - mean_g) - r(xhat[j] * mean_gx)));
    }
    return o;
}

void expect_same(const Tensor& got, const std::vector<float>& want, const char* what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (std::size_t k = 0; k < want.size(); ++k) EXPECT_EQ(got.host()[k], want[k]) << what << "[" << k << "]";
}

void expect_stepwise(FormatId compute, Rounding r) {
    CpuBackend be;
    // 7 rows: a block of 4 and 3 single rows; inputs and dy on the compute grid.
    Problem p = make_problem(7, 48, 11);
    for (std::vector<float>* v : {&p.x, &p.dy, &p.gamma, &p.beta})
        for (float& e : *v) e = r(e * 40.0f);
    const Outputs got = run(be, p, compute, compute, compute);
    const StepwiseOutputs want = stepwise(p, r);
    expect_same(got.y, want.y, "y");
    expect_same(got.mean, want.mean, "mean");
    expect_same(got.rstd, want.rstd, "rstd");
    expect_same(got.dx, want.dx, "dx");
    expect_same(got.dgamma, want.dgamma, "dgamma");
    expect_same(got.dbeta, want.dbeta, "dbeta");
    // And the arithmetic is not FP32's: some result differs from the FP32 op's, rounded.
    const Outputs f32 = run(be, p, compute, compute, FormatId::fp32);
    std::size_t differ = 0;
    for (std::size_t k = 0; k < got.dx.size(); ++k) differ += got.dx.host()[k] != f32.dx.host()[k];
    EXPECT_GT(differ, 0u);
}

TEST(LayerNorm, Fp16ComputeRoundsEveryStep) { expect_stepwise(FormatId::fp16, rounded_by_compiler_fp16); }
TEST(LayerNorm, Bf16ComputeRoundsEveryStep) { expect_stepwise(FormatId::bf16, rounded_to_nearest_bf16); }

// The failure that keeps LayerNorm on the FP32 list: activations around 300
// have squares beyond FP16's 65504, so in FP16 the variance is Inf, rstd is 0
// and the row's output is beta alone, its gradient to x zero. In FP32 the
// same row normalises to mean 0, variance 1 (before gamma and beta).
TEST(LayerNorm, Fp16VarianceOverflowCollapsesTheRowToBeta) {
    CpuBackend be;
    Problem p = make_problem(1, 32, 12);
    for (int j = 0; j < p.cols; ++j) p.x[j] = (j % 2 ? 300.0f : -300.0f) + static_cast<float>(j);
    const Outputs half = run(be, p, FormatId::fp16, FormatId::fp16, FormatId::fp16);
    EXPECT_EQ(half.rstd.host()[0], 0.0f);
    for (int j = 0; j < p.cols; ++j) {
        EXPECT_EQ(half.y.host()[j], rounded_by_compiler_fp16(p.beta[j])) << j;
        EXPECT_EQ(half.dx.host()[j], 0.0f) << j;
    }
    const Outputs full = run(be, p, FormatId::fp16, FormatId::fp16, FormatId::fp32);
    const std::vector<double> want = ref_forward(p, widen(p.x), widen(p.gamma), widen(p.beta));
    expect_close(full.y, want, 1e-3, 1.0, "FP32-computed y");
}

using testing_support::error_of;

TEST(LayerNorm, RejectsShapesThatDoNotFit) {
    CpuBackend be;
    Tensor x = be.allocate({4, 3}, FormatId::fp32), y = be.allocate({4, 3}, FormatId::fp32);
    Tensor gamma = be.allocate({1, 3}, FormatId::fp32), beta = be.allocate({1, 3}, FormatId::fp32);
    Tensor mean = be.allocate({4, 1}, FormatId::fp32), rstd = be.allocate({4, 1}, FormatId::fp32);
    Tensor wide = be.allocate({1, 4}, FormatId::fp32), half_mean = be.allocate({4, 1}, FormatId::fp16);
    EXPECT_EQ(error_of([&] { be.layer_norm_forward(x, wide, beta, kEps, FormatId::fp32, y, mean, rstd); }),
              "layer_norm_forward: gamma 1x4 does not fit x 4x3 (want 1x3)");
    EXPECT_EQ(error_of([&] { be.layer_norm_forward(x, gamma, beta, kEps, FormatId::fp32, y, half_mean, rstd); }),
              "layer_norm_forward: mean 4x1 fp16 does not fit x 4x3 (want 4x1 fp32)");
    EXPECT_EQ(error_of([&] { be.layer_norm_forward(x, gamma, beta, -1.0f, FormatId::fp32, y, mean, rstd); }),
              "layer_norm_forward: eps -1 is not finite and >= 0");
    EXPECT_EQ(error_of([&] { be.layer_norm_backward(x, gamma, mean, rstd, y, FormatId::fp32, y, gamma, wide); }),
              "layer_norm_backward: dbeta 1x4 does not fit x 4x3 (want 1x3)");
    Tensor tall = be.allocate({3, 3}, FormatId::fp32);
    EXPECT_EQ(error_of([&] { be.layer_norm_backward(x, gamma, mean, rstd, tall, FormatId::fp32, y, gamma, beta); }),
              "layer_norm_backward: shapes differ, 4x3 vs 3x3");
}

}  // namespace
}  // namespace plab
