// SoftFp32 against the FPU's own FP32 arithmetic (this machine keeps
// subnormals: no flush-to-zero), bit for bit, over operands crowded around
// the subnormal range; and, on x86, the proof that it never hands the FPU a
// subnormal: the MXCSR's denormal-operand and underflow flags stay clear.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "engine/numeric/scalar_cast.h"
#include "engine/numeric/soft_fp32.h"
#include "numeric/mxcsr_flags.h"

namespace plab {
namespace {

// FP32 values from bit patterns: mostly tiny (subnormal, around 2^-126, the
// products of two of them), with some ordinary ones, zeros, Inf and NaN.
std::vector<float> crowded_operands(std::size_t n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<float> v;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t sign = (rng() & 1u) << 31;
        const std::uint32_t mantissa = rng() & 0x7fffffu;
        std::uint32_t exponent = 0;
        switch (rng() % 8) {
            case 0: case 1: case 2: exponent = 0; break;                    // subnormal
            case 3: exponent = 1 + rng() % 4; break;                        // just above 2^-126
            case 4: exponent = 60 + rng() % 20; break;                      // 2^-67..2^-48: squares go subnormal
            case 5: exponent = 100 + rng() % 60; break;                     // ordinary
            case 6: exponent = 127 + rng() % 128; break;                    // large, Inf and NaN at 255
            default: exponent = rng() % 256; break;
        }
        v.push_back(bits_float(sign | (exponent << 23) | mantissa));
    }
    v.insert(v.end(), {0.0f, -0.0f, bits_float(1), bits_float(0x807fffffu), 0x1p-126f, 0.9f, 0.999f, 0.001f});
    return v;
}

// Same bits, or both NaN (x86 gives the same NaN too, but NaN payloads are
// not what this is about).
bool same(float a, float b) { return float_bits(a) == float_bits(b) || (std::isnan(a) && std::isnan(b)); }

TEST(SoftFp32, EveryOperationMatchesTheFpuBitForBit) {
    const std::vector<float> a = crowded_operands(20000, 1), b = crowded_operands(20000, 2);
    for (std::size_t i = 0; i < a.size(); ++i) {
        const float x = a[i], y = b[i];
        const SoftFp32 sx = x, sy = y;
        ASSERT_TRUE(same((sx + sy).fp32(), x + y)) << x << " + " << y;
        ASSERT_TRUE(same((sx - sy).fp32(), x - y)) << x << " - " << y;
        ASSERT_TRUE(same((sx * sy).fp32(), x * y)) << x << " * " << y;
        ASSERT_TRUE(same((sx / sy).fp32(), x / y)) << x << " / " << y;
        ASSERT_TRUE(same(sqrt_of(sx).fp32(), std::sqrt(x))) << "sqrt " << x;
        ASSERT_TRUE(same((sx * 0.9f + sy * 0.1f).fp32(), x * 0.9f + y * 0.1f)) << x << ", " << y;
    }
}

// Every subnormal and the normals at the edge survive the trip in and out.
TEST(SoftFp32, EverySubnormalRoundTrips) {
    for (std::uint32_t bits = 0; bits <= 0x00800010u; ++bits)
        for (const std::uint32_t sign : {0u, 0x80000000u})
            ASSERT_EQ(float_bits(SoftFp32(bits_float(sign | bits)).fp32()), sign | bits) << std::hex << bits;
}

// A moment stuck at the smallest subnormal: 0.9 * 2^-149 rounds back up.
TEST(SoftFp32, TiesAndTheStuckMomentRoundAsTheFpuDoes) {
    const float smallest = bits_float(1);
    EXPECT_EQ(float_bits((SoftFp32(smallest) * 0.9f).fp32()), 1u);
    EXPECT_EQ(float_bits((SoftFp32(smallest) * 0.5f).fp32()), 0u);                      // a tie: to even, zero
    EXPECT_EQ(float_bits((SoftFp32(bits_float(3)) * 0.5f).fp32()), 2u);                 // 1.5 units: to even, 2
    EXPECT_EQ(float_bits((SoftFp32(-smallest) * 0.5f).fp32()), 0x80000000u);            // signed zero
    EXPECT_EQ(float_bits((SoftFp32(bits_float(0x007fffffu)) + smallest).fp32()), 0x00800000u);  // into the normals
}

TEST(SoftFp32, NeverHandsTheFpuASubnormal) {
    if (!mxcsr::available()) GTEST_SKIP() << "no MXCSR on this architecture";
    const std::vector<float> tiny = {bits_float(1), bits_float(0x80000005u), bits_float(0x007fffffu), 0x1p-130f,
                                     0x1p-126f, 0x1p-70f};
    mxcsr::clear();
    float sink = 0.0f;
    for (const float x : tiny)
        for (const float y : tiny) {
            const SoftFp32 r = (SoftFp32(x) * 0.9f + SoftFp32(y) * y) / sqrt_of(SoftFp32(x) * x + 1.0f);
            sink += float_bits(r.fp32()) & 1u ? 1.0f : 0.0f;
        }
    EXPECT_EQ(mxcsr::subnormal_flags(), 0u) << sink;
    // The check itself can fail: plain float arithmetic on the same values sets them.
    mxcsr::clear();
    volatile float x = bits_float(1);
    volatile float y = x * 0.9f;
    (void)y;
    EXPECT_NE(mxcsr::subnormal_flags(), 0u);
}

}  // namespace
}  // namespace plab
