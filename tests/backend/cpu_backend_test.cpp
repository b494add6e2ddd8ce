// The CPU backend against independent references: a naive double-precision
// GEMM, closed-form activations and central finite differences.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>
#include <vector>

#include "engine/backend/activation_math.h"
#include "engine/backend/cpu/cpu_backend.h"
#include "engine/common/error.h"
#include "engine/numeric/scalar_cast.h"
#include "backend_scaler_checks.h"
#include "error_text.h"
#include "reference_activation.h"

namespace plab {
namespace {

Tensor make(CpuBackend& be, Shape s, FormatId dtype, const std::vector<float>& values) {
    Tensor t = be.allocate(s, dtype);
    be.upload(values.data(), t);
    return t;
}

std::vector<float> values_of(const Tensor& t) { return {t.host(), t.host() + t.size()}; }

std::vector<float> random_values(std::size_t n, std::uint32_t seed, float scale) {
    std::mt19937 rng(seed);
    std::vector<float> v(n);
    for (auto& x : v) x = (static_cast<float>(rng() % 20001) / 10000.0f - 1.0f) * scale;
    return v;
}

TEST(CpuBackend, UploadRoundsToTheTensorFormat) {
    CpuBackend be;
    const Tensor t = make(be, {1, 3}, FormatId::fp16, {0.1f, 70000.0f, 1e-8f});
    EXPECT_EQ(t.host()[0], 0.0999755859375f);
    EXPECT_TRUE(std::isinf(t.host()[1]));
    EXPECT_EQ(t.host()[2], 0.0f);
    Tensor b = be.allocate({1, 3}, FormatId::e4m3);
    be.convert(t, b);
    EXPECT_EQ(b.host()[0], 0.1015625f);
    EXPECT_EQ(b.host()[1], 448.0f);  // E4M3 saturates by default
}

// The compute format rounds GEMM inputs: 1 + 2^-9 survives FP16 and TF32
// (10 mantissa bits) but rounds to 1 in BF16 (7 bits).
TEST(CpuBackend, GemmRoundsInputsToTheComputeFormat) {
    CpuBackend be;
    const float x = 1.0f + std::ldexp(1.0f, -9);
    const Tensor a = make(be, {1, 1}, FormatId::fp32, {x});
    const Tensor b = make(be, {1, 1}, FormatId::fp32, {1.0f});
    for (auto [compute, want] : {std::pair{FormatId::fp32, x}, std::pair{FormatId::tf32, x},
                                 std::pair{FormatId::fp16, x}, std::pair{FormatId::bf16, 1.0f}}) {
        Tensor c = be.allocate({1, 1}, FormatId::fp32);
        be.gemm(a, b, c, {.compute = compute});
        EXPECT_EQ(c.host()[0], want) << format_name(compute);
    }
}

// Double-precision reference of c = op(a) op(b) with inputs rounded to `compute`.
std::vector<double> reference_gemm(const std::vector<float>& a, Shape as, bool ta, const std::vector<float>& b,
                                   Shape bs, bool tb, FormatId compute) {
    const int m = ta ? as.cols : as.rows, k = ta ? as.rows : as.cols, n = tb ? bs.rows : bs.cols;
    auto at = [&](int i, int p) { return ta ? a[p * as.cols + i] : a[i * as.cols + p]; };
    auto bt = [&](int p, int j) { return tb ? b[j * bs.cols + p] : b[p * bs.cols + j]; };
    std::vector<double> c(static_cast<std::size_t>(m) * n, 0.0);
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j)
            for (int p = 0; p < k; ++p)
                c[i * n + j] += static_cast<double>(round_to(compute, at(i, p))) * round_to(compute, bt(p, j));
    return c;
}

TEST(CpuBackend, GemmMatchesDoubleReferenceForEveryLayoutAndFormat) {
    CpuBackend be;
    for (FormatId compute : {FormatId::fp32, FormatId::tf32, FormatId::fp16, FormatId::bf16}) {
        for (bool ta : {false, true}) {
            for (bool tb : {false, true}) {
                const int m = 7, k = 33, n = 5;
                const Shape as = ta ? Shape{k, m} : Shape{m, k}, bs = tb ? Shape{n, k} : Shape{k, n};
                const auto va = random_values(as.size(), 1, 2.0f), vb = random_values(bs.size(), 2, 0.5f);
                const Tensor a = make(be, as, FormatId::fp32, va), b = make(be, bs, FormatId::fp32, vb);
                Tensor c = be.allocate({m, n}, FormatId::fp32);
                be.gemm(a, b, c, {.compute = compute, .trans_a = ta, .trans_b = tb});
                const auto want = reference_gemm(va, as, ta, vb, bs, tb, compute);
                for (std::size_t i = 0; i < want.size(); ++i)
                    // FP32 accumulation of 33 products of magnitude <= 1: error well under 33 * 2^-24.
                    ASSERT_NEAR(c.host()[i], want[i], 33 * std::ldexp(1.0, -24))
                        << format_name(compute) << " ta=" << ta << " tb=" << tb << " i=" << i;
            }
        }
    }
}

TEST(CpuBackend, GemmOutputIsRoundedAndBetaAccumulates) {
    CpuBackend be;
    // Small integers: every FP32 sum is exact, so the result is exact too.
    const Tensor a = make(be, {2, 3}, FormatId::fp32, {1, 2, 3, 4, 5, 6});
    const Tensor b = make(be, {3, 2}, FormatId::fp32, {7, 8, 9, 10, 11, 12});
    Tensor c = make(be, {2, 2}, FormatId::fp32, {1, 1, 1, 1});
    be.gemm(a, b, c, {.alpha = 2.0f, .beta = 3.0f});
    EXPECT_EQ(values_of(c), (std::vector<float>{2 * 58 + 3, 2 * 64 + 3, 2 * 139 + 3, 2 * 154 + 3}));

    const Tensor big = make(be, {1, 1}, FormatId::fp32, {300.0f});
    Tensor out16 = be.allocate({1, 1}, FormatId::fp16);
    be.gemm(big, big, out16, {.compute = FormatId::fp16});  // 90000 > 65504
    EXPECT_TRUE(std::isinf(out16.host()[0]));
}

TEST(CpuBackend, ShapeMismatchIsAnErrorNamingTheShapes) {
    CpuBackend be;
    const Tensor a = be.allocate({2, 3}, FormatId::fp32), b = be.allocate({2, 3}, FormatId::fp32);
    Tensor c = be.allocate({2, 3}, FormatId::fp32);
    try {
        be.gemm(a, b, c, {});
        FAIL() << "no error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("2x3 x 2x3"), std::string::npos) << e.what();
    }
}

TEST(CpuBackend, GemmBiasIsAddedBeforeTheOneRounding) {
    CpuBackend be;
    const Tensor a = make(be, {2, 1}, FormatId::fp32, {1, 2});
    const Tensor b = make(be, {1, 3}, FormatId::fp32, {1, 2, 3});
    const Tensor bias = make(be, {1, 3}, FormatId::fp32, {10, 20, 30});
    Tensor c = be.allocate({2, 3}, FormatId::fp32);
    be.gemm(a, b, c, {.row_bias = &bias});
    EXPECT_EQ(values_of(c), (std::vector<float>{11, 22, 33, 12, 24, 36}));
    // 2048 + 1 is a tie in FP16 (rounds to 2048); 2049 + 0.5 is not (rounds to 2050).
    // Rounding the product first would give 2048 + 0.5 -> 2048.
    const Tensor x = make(be, {1, 1}, FormatId::fp32, {2049.0f});
    const Tensor one = make(be, {1, 1}, FormatId::fp32, {1.0f});
    const Tensor half = make(be, {1, 1}, FormatId::fp32, {0.5f});
    Tensor y = be.allocate({1, 1}, FormatId::fp16);
    be.gemm(x, one, y, {.row_bias = &half});
    EXPECT_EQ(y.host()[0], 2050.0f);
}

TEST(CpuBackend, ColumnSums) {
    CpuBackend be;
    const Tensor x = make(be, {2, 3}, FormatId::fp32, {11, 22, 33, 14, 25, 36});
    Tensor sums = be.allocate({1, 3}, FormatId::fp32);
    be.column_sums(x, sums);
    EXPECT_EQ(values_of(sums), (std::vector<float>{25, 47, 69}));
}

using test::reference_activation;

TEST(CpuBackend, ActivationsMatchClosedFormsAndFiniteDifferences) {
    CpuBackend be;
    const auto xs = random_values(200, 3, 4.0f);
    for (Activation a : {Activation::identity, Activation::relu, Activation::tanh, Activation::gelu}) {
        const Tensor x = make(be, {1, 200}, FormatId::fp32, xs);
        Tensor y = be.allocate({1, 200}, FormatId::fp32), dx = be.allocate({1, 200}, FormatId::fp32);
        const Tensor ones = make(be, {1, 200}, FormatId::fp32, std::vector<float>(200, 1.0f));
        be.activation_forward(a, x, y);
        be.activation_backward(a, x, ones, dx);
        for (std::size_t i = 0; i < xs.size(); ++i) {
            const double xi = xs[i];
            EXPECT_NEAR(y.host()[i], reference_activation(a, xi), 4e-7 * (1 + std::fabs(xi))) << activation_name(a);
            if (a == Activation::relu && std::fabs(xi) < 1e-3) continue;  // the kink
            const double h = 1e-5;
            const double slope = (reference_activation(a, xi + h) - reference_activation(a, xi - h)) / (2 * h);
            EXPECT_NEAR(dx.host()[i], slope, 2e-6) << activation_name(a) << " at " << xi;
        }
    }
}

TEST(CpuBackend, ElementwiseOutputsRoundToTheirFormat) {
    CpuBackend be;
    const Tensor x = make(be, {1, 2}, FormatId::fp32, {0.3f, -2.0f});
    Tensor y = be.allocate({1, 2}, FormatId::bf16);
    be.activation_forward(Activation::tanh, x, y);
    EXPECT_EQ(y.host()[0], round_to(FormatId::bf16, std::tanh(0.3f)));
    EXPECT_EQ(y.host()[1], round_to(FormatId::bf16, std::tanh(-2.0f)));
}

// The twin comparison's four sums at sizes around its lane count (8): integer
// values, whose sums are exact in any order, must come out exactly; random
// values of many magnitudes within FP64 rounding of a long double sum.
TEST(CpuBackend, CompareSumsAreExactOnIntegersAndCloseToALongDoubleReference) {
    CpuBackend be;
    for (std::size_t n : {1u, 7u, 8u, 9u, 17u, 4097u}) {
        std::mt19937 rng(static_cast<std::uint32_t>(n));
        std::vector<float> ai(n), bi(n), ar(n), br(n);
        for (std::size_t i = 0; i < n; ++i) {
            ai[i] = static_cast<float>(static_cast<int>(rng() % 201) - 100);
            bi[i] = static_cast<float>(static_cast<int>(rng() % 201) - 100);
            ar[i] = std::ldexp(static_cast<float>(rng() % 100000) / 100000.0f - 0.5f, static_cast<int>(rng() % 40) - 20);
            br[i] = ar[i] * (1.0f + static_cast<float>(rng() % 1000) * 1e-6f);
        }
        struct Sums {
            long double diff_sq = 0, a_sq = 0, b_sq = 0, dot = 0;
        };
        auto reference = [](const std::vector<float>& a, const std::vector<float>& b) {
            Sums s;
            for (std::size_t i = 0; i < a.size(); ++i) {
                const long double x = a[i], y = b[i];
                s.diff_sq += (x - y) * (x - y);
                s.a_sq += x * x;
                s.b_sq += y * y;
                s.dot += x * y;
            }
            return s;
        };
        const Shape shape{1, static_cast<int>(n)};
        const TensorComparison exact = be.compare(make(be, shape, FormatId::fp32, ai), make(be, shape, FormatId::fp32, bi));
        const Sums e = reference(ai, bi);
        EXPECT_EQ(exact.diff_sq, static_cast<double>(e.diff_sq)) << n;
        EXPECT_EQ(exact.a_sq, static_cast<double>(e.a_sq)) << n;
        EXPECT_EQ(exact.b_sq, static_cast<double>(e.b_sq)) << n;
        EXPECT_EQ(exact.dot, static_cast<double>(e.dot)) << n;
        const TensorComparison c = be.compare(make(be, shape, FormatId::fp32, ar), make(be, shape, FormatId::fp32, br));
        const Sums r = reference(ar, br);
        EXPECT_NEAR(c.diff_sq, static_cast<double>(r.diff_sq), 1e-13 * static_cast<double>(r.diff_sq)) << n;
        EXPECT_NEAR(c.a_sq, static_cast<double>(r.a_sq), 1e-13 * static_cast<double>(r.a_sq)) << n;
        EXPECT_NEAR(c.b_sq, static_cast<double>(r.b_sq), 1e-13 * static_cast<double>(r.b_sq)) << n;
        EXPECT_NEAR(c.dot, static_cast<double>(r.dot), 1e-13 * static_cast<double>(r.dot)) << n;
    }
}

// The loss scale kept by the backend (the defaults of backend.h here).
// A view shares its tensor's storage: one upload fills the small tensors
// packed in it, a write through a view is the tensor's, and it keeps the
// storage alive; a view past the end is an error naming the sizes.
TEST(CpuBackend, ViewsShareTheirTensorsStorage) {
    CpuBackend be;
    Tensor block = be.allocate({1, 6}, FormatId::fp32);
    const std::uint64_t allocated = be.allocations();
    Tensor head = block.view(0, {1, 2}), tail = block.view(2, {2, 2});
    EXPECT_EQ(be.allocations(), allocated);
    const float values[] = {1, 2, 3, 4, 5, 6};
    be.upload(values, block);
    EXPECT_EQ(testing_support::download_all(be, head), (std::vector<float>{1, 2}));
    EXPECT_EQ(testing_support::download_all(be, tail), (std::vector<float>{3, 4, 5, 6}));
    const float seven = 7;
    Tensor fifth = tail.view(2, {1, 1});
    be.upload(&seven, fifth);
    EXPECT_EQ(testing_support::download_all(be, block), (std::vector<float>{1, 2, 3, 4, 7, 6}));
    block = Tensor();
    EXPECT_EQ(testing_support::download_all(be, tail), (std::vector<float>{3, 4, 7, 6}));
    EXPECT_EQ(testing_support::error_of([&] { (void)tail.view(1, {1, 4}); }),
              "a view of 4 values from element 1 does not fit in a 2x2 tensor");
}

TEST(CpuBackend, UpdateScalerMovesTheStateAsTheLossScaler) {
    CpuBackend be;
    testing_support::expect_update_scaler_follows_loss_scaler(be);
}

TEST(CpuBackend, UnscaleOnDeviceReadsTheScaleAndLeavesTheFlag) {
    CpuBackend be;
    testing_support::expect_unscale_flagged_is_unscale_all(be);
}

TEST(CpuBackend, ScalerStateOfTheWrongSizeIsAnErrorNamingIt) {
    CpuBackend be;
    Tensor state = be.allocate({1, 2}, FormatId::fp32);
    Tensor flag = be.allocate({1, 1}, FormatId::fp32);
    Tensor rule = be.allocate({1, kScalerRuleWords}, FormatId::fp32);
    EXPECT_EQ(testing_support::error_of([&] { be.update_scaler(rule, flag, state); }),
              "update_scaler: the scaler state holds 3 floats (scale, growth tracker, hysteresis left), not 2");
    EXPECT_EQ(testing_support::error_of([&] { be.update_scaler(flag, flag, state); }),
              "update_scaler: the scaler rule holds 7 floats (kind, growth factor, backoff factor, growth interval, "
              "hysteresis, min scale, max scale), not 1");
    Tensor good = be.allocate({1, 3}, FormatId::fp32);
    Tensor wide_flag = be.allocate({1, 2}, FormatId::fp32);
    EXPECT_THROW(be.unscale_all_flagged({}, good, wide_flag), Error);
}

// The token matmuls against plain loops: every term, FP32, in index order
// from zero. Causal weights (zero above the diagonal) and one key row of v
// holding Inf: the backend may skip a zero weight's term only where it
// cannot matter, so the outputs must match bit for bit, NaN included.
TEST(CpuBackend, TokenMatmulsSumEveryTermInIndexOrder) {
    constexpr int kRows = 3, kTokens = 6, kWidth = 5;
    constexpr std::size_t t = kTokens, w = kWidth, pairs = t * t, values = t * w;
    CpuBackend be;
    std::vector<float> probs = random_values(kRows * pairs, 1, 1.0f), v = random_values(kRows * values, 2, 3.0f);
    const std::vector<float> dout = random_values(kRows * values, 3, 2.0f);
    for (std::size_t r = 0; r < kRows; ++r)
        for (std::size_t i = 0; i < t; ++i)
            for (std::size_t j = i + 1; j < t; ++j) probs[r * pairs + i * t + j] = 0.0f;
    v[1 * values + 4 * w + 2] = INFINITY;  // row 1, key token 4: every query before it weighs it 0
    const Tensor p = make(be, {kRows, static_cast<int>(pairs)}, FormatId::fp32, probs);
    const Tensor vt = make(be, {kRows, static_cast<int>(values)}, FormatId::fp32, v);
    const Tensor dt = make(be, {kRows, static_cast<int>(values)}, FormatId::fp32, dout);
    Tensor out = be.allocate(vt.shape(), FormatId::fp32), dv = be.allocate(vt.shape(), FormatId::fp32);
    Tensor dprobs = be.allocate(p.shape(), FormatId::fp32);
    be.token_mix(p, vt, kTokens, out);
    be.token_mix_backward(p, vt, dt, kTokens, dprobs, dv);

    auto bits = [](float x) { return std::bit_cast<std::uint32_t>(x); };
    for (std::size_t r = 0; r < kRows; ++r) {
        const float* pr = probs.data() + r * pairs;
        const float* vr = v.data() + r * values;
        const float* dr = dout.data() + r * values;
        for (std::size_t i = 0; i < t; ++i)
            for (std::size_t c = 0; c < w; ++c) {
                float mix = 0.0f, back = 0.0f;
                for (std::size_t j = 0; j < t; ++j) {
                    mix += pr[i * t + j] * vr[j * w + c];
                    back += pr[j * t + i] * dr[j * w + c];
                }
                ASSERT_EQ(bits(out.host()[r * values + i * w + c]), bits(mix)) << r << " " << i << " " << c;
                ASSERT_EQ(bits(dv.host()[r * values + i * w + c]), bits(back)) << r << " " << i << " " << c;
            }
        for (std::size_t i = 0; i < t; ++i)
            for (std::size_t j = 0; j < t; ++j) {
                float dot = 0.0f;
                for (std::size_t c = 0; c < w; ++c) dot += dr[i * w + c] * vr[j * w + c];
                ASSERT_EQ(bits(dprobs.host()[r * pairs + i * t + j]), bits(dot)) << r << " " << i << " " << j;
            }
    }
    EXPECT_TRUE(std::isnan(out.host()[1 * values + 0 * w + 2]));  // 0 x Inf, though the weight is 0
    EXPECT_FALSE(std::isnan(out.host()[0 * values + 0 * w + 2]));
}

}  // namespace
}  // namespace plab
