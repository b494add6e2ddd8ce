// The fixed-order GEMM against a plain scalar loop written from its
// definition (fused multiply-adds in k order from +0, then alpha and beta),
// for both kernels, every layout and shapes with every kind of tile tail.
// Equality is exact: the order is the whole point.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>
#include <vector>

#include "engine/backend/cpu/fixed_order_gemm.h"

namespace plab::cpu {
namespace {

std::vector<float> random_floats(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    // Wide exponents and both signs, so different summation orders round differently.
    std::uniform_real_distribution<float> mant(-1.0f, 1.0f);
    std::uniform_int_distribution<int> exp(-20, 20);
    std::vector<float> v(n);
    for (auto& x : v) x = std::ldexp(mant(rng), exp(rng));
    return v;
}

std::vector<float> definition(const GemmShape& s, float alpha, const std::vector<float>& a,
                              const std::vector<float>& b, float beta, std::vector<float> c) {
    for (int i = 0; i < s.m; ++i)
        for (int j = 0; j < s.n; ++j) {
            float acc = 0.0f;
            for (int p = 0; p < s.k; ++p) {
                const float x = s.trans_a ? a[static_cast<std::size_t>(p) * s.m + i] : a[static_cast<std::size_t>(i) * s.k + p];
                const float y = s.trans_b ? b[static_cast<std::size_t>(j) * s.k + p] : b[static_cast<std::size_t>(p) * s.n + j];
                acc = std::fma(x, y, acc);
            }
            float& out = c[static_cast<std::size_t>(i) * s.n + j];
            if (beta == 0.0f) {
                out = alpha * acc;
            } else {
                const volatile float product = alpha * acc;  // two roundings, never one fused
                const volatile float kept = beta * out;
                out = product + kept;
            }
        }
    return c;
}

class FixedOrderGemm : public ::testing::TestWithParam<bool> {
protected:
    void SetUp() override { detail::force_portable_gemm(GetParam()); }
    void TearDown() override { detail::force_portable_gemm(false); }
};

TEST_P(FixedOrderGemm, EqualsItsDefinitionBitForBit) {
    unsigned seed = 1;
    std::vector<float> scratch;
    for (int m : {1, 3, 4, 5, 9})
        for (int n : {1, 7, 8, 15, 16, 17, 40})
            for (int k : {0, 1, 2, 33})
                for (bool ta : {false, true})
                    for (bool tb : {false, true})
                        for (auto [alpha, beta] : {std::pair{1.0f, 0.0f}, std::pair{0.375f, 0.0f}, std::pair{1.5f, -0.75f}}) {
                            const GemmShape s{m, n, k, ta, tb};
                            const auto a = random_floats(static_cast<std::size_t>(m) * k, seed++);
                            const auto b = random_floats(static_cast<std::size_t>(k) * n, seed++);
                            auto c = random_floats(static_cast<std::size_t>(m) * n, seed++);
                            const auto want = definition(s, alpha, a, b, beta, c);
                            fixed_order_gemm(s, alpha, a.data(), b.data(), beta, c.data(), scratch);
                            for (std::size_t i = 0; i < c.size(); ++i)
                                ASSERT_EQ(std::bit_cast<std::uint32_t>(c[i]), std::bit_cast<std::uint32_t>(want[i]))
                                    << m << "x" << n << "x" << k << " ta=" << ta << " tb=" << tb << " alpha=" << alpha
                                    << " beta=" << beta << " element " << i;
                        }
}

// beta == 0 means c is not read: a NaN left in it must not come through.
TEST_P(FixedOrderGemm, ZeroBetaIgnoresWhatCHeld) {
    std::vector<float> scratch, a{1, 2}, b{3, 4}, c{std::nanf("")};
    fixed_order_gemm({1, 1, 2}, 1.0f, a.data(), b.data(), 0.0f, c.data(), scratch);
    EXPECT_EQ(c[0], 11.0f);
}

INSTANTIATE_TEST_SUITE_P(Kernels, FixedOrderGemm, ::testing::Values(false, true),
                         [](const auto& p) { return p.param ? "portable" : "fastest_on_this_cpu"; });

// The order is observable: three values whose sum depends on it. 2^24 + 1 - 2^24
// is 0 from the left (2^24 + 1 rounds to 2^24) and 1 from the right.
TEST(FixedOrderGemmOrder, SumsFromTheFirstProductToTheLast) {
    std::vector<float> scratch, a{16777216.0f, 1.0f, -16777216.0f}, b{1, 1, 1}, c{0};
    fixed_order_gemm({1, 1, 3}, 1.0f, a.data(), b.data(), 0.0f, c.data(), scratch);
    EXPECT_EQ(c[0], 0.0f);
}

}  // namespace
}  // namespace plab::cpu
