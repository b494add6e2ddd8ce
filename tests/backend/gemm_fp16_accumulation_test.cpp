// A GEMM accumulating in FP16 (GemmSpec::accumulate) against the compiler's
// own _Float16 arithmetic, summed in k order, and against a closed form: the
// stall of a long sum of one small value once the sum's ULP outgrows it.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "error_text.h"

namespace plab {
namespace {

using testing_support::error_of;

// FP16 values drawn by the compiler's float -> _Float16 conversion (its own
// rounding, not the lab's), spread over [-scale, scale].
std::vector<_Float16> random_halves(std::size_t n, std::uint32_t seed, float scale) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> u(-scale, scale);
    std::vector<_Float16> v(n);
    for (auto& x : v) x = static_cast<_Float16>(u(rng));
    return v;
}

std::vector<float> widened(const std::vector<_Float16>& v) { return {v.begin(), v.end()}; }

Tensor uploaded(CpuBackend& be, Shape s, const std::vector<float>& values) {
    Tensor t = be.allocate(s, FormatId::fp16);
    be.upload(values.data(), t);
    return t;
}

// c(i, j) with each partial sum held in a _Float16: the FP32 sum of the
// previous one and the FP32 product (exact: two 11-bit significands),
// converted by the compiler. a is m x k (k x m when ta), b k x n (n x k when tb).
std::vector<float> float16_reference(const std::vector<_Float16>& a, bool ta, const std::vector<_Float16>& b,
                                     bool tb, int m, int n, int k) {
    std::vector<float> c(static_cast<std::size_t>(m) * n);
    for (int i = 0; i < m; ++i)
        for (int j = 0; j < n; ++j) {
            _Float16 sum = 0;
            for (int p = 0; p < k; ++p) {
                const float x = a[ta ? p * m + i : i * k + p], y = b[tb ? j * k + p : p * n + j];
                sum = static_cast<_Float16>(static_cast<float>(sum) + x * y);
            }
            c[static_cast<std::size_t>(i) * n + j] = sum;
        }
    return c;
}

// Bits, so that Inf and the sign of zero count; NaN never arises here.
void expect_same_values(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
    ASSERT_EQ(got.size(), want.size());
    int differing = 0;
    for (std::size_t i = 0; i < got.size(); ++i)
        if (std::signbit(got[i]) != std::signbit(want[i]) || !(got[i] == want[i])) ++differing;
    EXPECT_EQ(differing, 0) << what << ": first " << got[0] << " vs " << want[0];
}

// Sizes that cross the kernel's row blocks (512 partial sums per cast), k
// long enough for sums to lose small terms, and inputs up to 64 in magnitude,
// where the FP16 ULP of a partial sum reaches several units.
TEST(GemmFp16Accumulation, EqualsFloat16ArithmeticInKOrder) {
    CpuBackend be;
    struct Case {
        int m, n, k;
        float scale;
    };
    for (const Case& s : {Case{7, 3, 300, 2.0f}, Case{37, 29, 517, 1.0f}, Case{3, 130, 64, 64.0f}}) {
        for (bool ta : {false, true})
            for (bool tb : {false, true}) {
                const auto ha = random_halves(static_cast<std::size_t>(s.m) * s.k, 11u + s.k, s.scale);
                const auto hb = random_halves(static_cast<std::size_t>(s.k) * s.n, 23u + s.n, s.scale);
                const Tensor a = uploaded(be, ta ? Shape{s.k, s.m} : Shape{s.m, s.k}, widened(ha));
                const Tensor b = uploaded(be, tb ? Shape{s.n, s.k} : Shape{s.k, s.n}, widened(hb));
                Tensor c = be.allocate({s.m, s.n}, FormatId::fp32);
                be.gemm(a, b, c,
                        {.compute = FormatId::fp16, .trans_a = ta, .trans_b = tb, .accumulate = FormatId::fp16});
                expect_same_values({c.host(), c.host() + c.size()}, float16_reference(ha, ta, hb, tb, s.m, s.n, s.k),
                                   std::to_string(s.m) + "x" + std::to_string(s.n) + "x" + std::to_string(s.k) +
                                       (ta ? " a^T" : "") + (tb ? " b^T" : ""));
            }
    }
}

// A partial sum past FP16's largest finite value is Inf, and stays Inf.
TEST(GemmFp16Accumulation, ASumPast65504IsInf) {
    CpuBackend be;
    const Tensor a = uploaded(be, {1, 3}, {256.0f, 256.0f, 1.0f});
    const Tensor b = uploaded(be, {3, 1}, {128.0f, 128.0f, -1.0f});
    Tensor c = be.allocate({1, 1}, FormatId::fp32);
    be.gemm(a, b, c, {.compute = FormatId::fp16, .accumulate = FormatId::fp16});
    EXPECT_TRUE(std::isinf(c.host()[0]));  // 32768 + 32768 = 65536 rounds past 65504; Inf - 1 stays Inf
}

// 4096 products of 2^-4 (0.25 x 0.25). Below 128 FP16's ULP is at most 2^-4,
// so every add is exact and the n-th partial sum is n / 16; at 128 (n = 2048)
// the ULP is 2^-3, the addend is exactly half of it, and the tie rounds to
// the even neighbour, 128 itself: the sum stalls at half the true 256. In
// FP32 every partial sum is exact.
TEST(GemmFp16Accumulation, ALongSumOfOneSmallValueStallsWhereItIsHalfAnUlp) {
    CpuBackend be;
    constexpr int kTerms = 4096;
    const Tensor a = uploaded(be, {1, kTerms}, std::vector<float>(kTerms, 0.25f));
    const Tensor b = uploaded(be, {kTerms, 1}, std::vector<float>(kTerms, 0.25f));
    Tensor c = be.allocate({1, 1}, FormatId::fp32);
    be.gemm(a, b, c, {.compute = FormatId::fp16, .accumulate = FormatId::fp16});
    EXPECT_EQ(c.host()[0], 128.0f);
    be.gemm(a, b, c, {.compute = FormatId::fp16});
    EXPECT_EQ(c.host()[0], 256.0f);
}

// The epilogue is the FP32 one on the FP16 sum: alpha, beta and the bias
// are applied after the last partial sum, then c's one rounding.
TEST(GemmFp16Accumulation, TheEpilogueReadsTheFp16Sum) {
    CpuBackend be;
    constexpr int kTerms = 4096;
    const Tensor a = uploaded(be, {1, kTerms}, std::vector<float>(kTerms, 0.25f));
    const Tensor b = uploaded(be, {kTerms, 1}, std::vector<float>(kTerms, 0.25f));
    const Tensor bias = uploaded(be, {1, 1}, {0.5f});
    Tensor c = be.allocate({1, 1}, FormatId::fp32);
    c.host()[0] = 4.0f;
    be.gemm(a, b, c,
            {.compute = FormatId::fp16, .alpha = 0.5f, .beta = 2.0f, .row_bias = &bias, .accumulate = FormatId::fp16});
    EXPECT_EQ(c.host()[0], 0.5f * 128.0f + 2.0f * 4.0f + 0.5f);
}

TEST(GemmFp16Accumulation, OnlyFp16InputsMayAccumulateInFp16) {
    CpuBackend be;
    const Tensor a = be.allocate({1, 2}, FormatId::fp32), b = be.allocate({2, 1}, FormatId::fp32);
    Tensor c = be.allocate({1, 1}, FormatId::fp32);
    const std::string fp32_inputs =
        error_of([&] { be.gemm(a, b, c, {.compute = FormatId::fp32, .accumulate = FormatId::fp16}); });
    EXPECT_NE(fp32_inputs.find("accumulation in FP16 over FP32 inputs"), std::string::npos) << fp32_inputs;
    const std::string scaled = error_of([&] {
        be.gemm(a, b, c,
                {.compute = FormatId::fp16,
                 .a_input = GemmSpec::ScaledInput{FormatId::e4m3, 1.0f},
                 .accumulate = FormatId::fp16});
    });
    EXPECT_NE(scaled.find("FP8-scaled"), std::string::npos) << scaled;
    const std::string bf16_sums =
        error_of([&] { be.gemm(a, b, c, {.compute = FormatId::fp16, .accumulate = FormatId::bf16}); });
    EXPECT_NE(bf16_sums.find("accumulation in BF16"), std::string::npos) << bf16_sums;
}

}  // namespace
}  // namespace plab
