// portable_exp and portable_log against long double's expl and logl (64-bit
// significands, an independent implementation): over a stride through every
// FP32 bit pattern in their domains, each result must be the correctly
// rounded one to within a millionth of an ULP, and the edge values exact.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "engine/numeric/portable_math.h"
#include "engine/numeric/scalar_cast.h"

namespace plab {
namespace {

// |result - exact| in ULPs of the result's binade (FP32 subnormals: 2^-149).
long double ulps_off(float result, long double exact) {
    int exponent = 0;
    std::frexp(result, &exponent);
    const long double ulp = std::ldexp(1.0L, std::max(exponent - 24, -149));
    return std::fabs(static_cast<long double>(result) - exact) / ulp;
}

constexpr long double kCorrectlyRounded = 0.5L + 1e-6L;

// The worst |f(x) - exact(x)| in ULPs over the bit patterns first, first +
// stride, ... below `last` whose value `in_domain` accepts; and how many were checked.
struct Worst {
    long double ulps = 0;
    float at = 0;
    long checked = 0;
};

template <typename F, typename Exact, typename InDomain>
Worst worst_over(std::uint64_t first, std::uint64_t last, std::uint64_t stride, F f, Exact exact, InDomain in_domain) {
    Worst w;
    for (std::uint64_t u = first; u < last; u += stride) {
        const float x = bits_float(static_cast<std::uint32_t>(u));
        if (!in_domain(x)) continue;
        const long double off = ulps_off(f(x), exact(static_cast<long double>(x)));
        if (off > w.ulps) w.ulps = off, w.at = x;
        ++w.checked;
    }
    return w;
}

TEST(PortableMath, ExpIsCorrectlyRoundedAcrossItsRange) {
    // Finite, non-zero results only: the edges are checked one by one below.
    const Worst w = worst_over(0, std::uint64_t{1} << 32, 997, [](float x) { return portable_exp(x); }, [](long double x) { return std::exp(x); },
                               [](float x) { return x > -103.9f && x < 88.7f; });
    EXPECT_GT(w.checked, 2'000'000);
    EXPECT_LE(w.ulps, kCorrectlyRounded) << "at x = " << w.at;
}

TEST(PortableMath, LogIsCorrectlyRoundedAcrossItsRange) {
    // Every positive finite value, subnormals too.
    const Worst w = worst_over(1, 0x7f800000u, 499, [](float x) { return portable_log(x); }, [](long double x) { return std::log(x); },
                               [](float) { return true; });
    EXPECT_GT(w.checked, 4'000'000);
    EXPECT_LE(w.ulps, kCorrectlyRounded) << "at x = " << w.at;
}

TEST(PortableMath, ExpNearOneAndAtItsEdges) {
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(portable_exp(0.0f), 1.0f);
    EXPECT_EQ(portable_exp(-0.0f), 1.0f);
    EXPECT_EQ(portable_exp(1.0f), 2.71828182845904523536f);
    EXPECT_EQ(portable_exp(88.72283f), static_cast<float>(std::exp(static_cast<long double>(88.72283f))));  // just below FLT_MAX
    EXPECT_LT(portable_exp(88.72283f), inf);
    EXPECT_EQ(portable_exp(88.7229f), inf);  // e^88.7229 > FLT_MAX + half an ULP
    EXPECT_EQ(portable_exp(100.0f), inf);
    EXPECT_EQ(portable_exp(inf), inf);
    EXPECT_EQ(portable_exp(-inf), 0.0f);
    EXPECT_EQ(portable_exp(-103.2789f), 0x1p-149f);  // e^x is 2^-149.0000
    EXPECT_EQ(portable_exp(-103.98f), 0.0f);         // below half the smallest subnormal
    EXPECT_EQ(portable_exp(-90.0f), static_cast<float>(std::exp(-90.0L)));  // a subnormal result
    EXPECT_TRUE(std::isnan(portable_exp(std::numeric_limits<float>::quiet_NaN())));
}

TEST(PortableMath, LogAtItsEdges) {
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(portable_log(1.0f), 0.0f);
    EXPECT_FALSE(std::signbit(portable_log(1.0f)));
    EXPECT_EQ(portable_log(2.0f), 0.693147180559945309f);
    EXPECT_EQ(portable_log(0.0f), -inf);
    EXPECT_EQ(portable_log(-0.0f), -inf);
    EXPECT_EQ(portable_log(inf), inf);
    EXPECT_TRUE(std::isnan(portable_log(-1.0f)));
    EXPECT_TRUE(std::isnan(portable_log(-inf)));
    EXPECT_TRUE(std::isnan(portable_log(std::numeric_limits<float>::quiet_NaN())));
    EXPECT_EQ(portable_log(0x1p-149f), static_cast<float>(-149.0L * 0.693147180559945309417232L));
    EXPECT_EQ(portable_log(0x1.fffffep127f), static_cast<float>(std::log(0x1.fffffep127L)));
    // Just either side of 1, where a careless log loses all its digits.
    EXPECT_EQ(portable_log(0x1.000002p0f), static_cast<float>(std::log1p(0x1p-23L)));
    EXPECT_EQ(portable_log(0x1.fffffep-1f), static_cast<float>(std::log1p(-0x1p-24L)));
}

}  // namespace
}  // namespace plab
