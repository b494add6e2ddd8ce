// Hand-checked values for every format: the edges of each range, the first
// value that overflows, exact ties that round down and up, NaN and signed zero.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "engine/numeric/scalar_cast.h"

namespace plab {
namespace {

float pow2(int e) { return std::ldexp(1.0f, e); }
float from_bits(std::uint32_t u) { return bits_float(u); }
float next_above(float x) { return std::nextafter(x, std::numeric_limits<float>::infinity()); }
float next_below(float x) { return std::nextafter(x, -std::numeric_limits<float>::infinity()); }
constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(GoldenFp16, RangeEdges) {
    EXPECT_EQ(encode(FormatId::fp16, 65504.0f), 0x7bffu);
    EXPECT_EQ(encode(FormatId::fp16, pow2(-14)), 0x0400u);  // min normal
    EXPECT_EQ(encode(FormatId::fp16, pow2(-24)), 0x0001u);  // min subnormal
    EXPECT_EQ(encode(FormatId::fp16, 1023 * pow2(-24)), 0x03ffu);
    EXPECT_EQ(encode(FormatId::fp16, 1.0f), 0x3c00u);
    EXPECT_EQ(encode(FormatId::fp16, 0.1f), 0x2e66u);
    EXPECT_EQ(decode(FormatId::fp16, 0x7bffu), 65504.0f);
    EXPECT_EQ(decode(FormatId::fp16, 0x0001u), pow2(-24));
    EXPECT_EQ(decode(FormatId::fp16, 0x3555u), 0.333251953125f);
}

TEST(GoldenFp16, FirstOverflowIsHalfAnUlpAboveMax) {
    // 65520 = 65504 + 16 is the tie between max (odd mantissa) and 2^16: rounds to Inf.
    EXPECT_EQ(encode(FormatId::fp16, 65520.0f), 0x7c00u);
    EXPECT_EQ(encode(FormatId::fp16, next_below(65520.0f)), 0x7bffu);
    EXPECT_EQ(encode(FormatId::fp16, -65520.0f), 0xfc00u);
    EXPECT_EQ(encode(FormatId::fp16, 1e10f), 0x7c00u);
    EXPECT_EQ(encode(FormatId::fp16, kInf, Overflow::saturate), 0x7c00u);  // FP16 ignores the FP8 mode
}

TEST(GoldenFp16, TiesRoundToEven) {
    EXPECT_EQ(encode(FormatId::fp16, 1.0f + pow2(-11)), 0x3c00u);       // tie, 1.0 is even: down
    EXPECT_EQ(encode(FormatId::fp16, 1.0f + 3 * pow2(-11)), 0x3c02u);   // tie, 1+2^-10 is odd: up
    EXPECT_EQ(encode(FormatId::fp16, next_above(1.0f + pow2(-11))), 0x3c01u);
    EXPECT_EQ(encode(FormatId::fp16, 2049.0f), 0x6800u);  // 2048
    EXPECT_EQ(encode(FormatId::fp16, 2051.0f), 0x6802u);  // 2052
}

TEST(GoldenFp16, SubnormalRounding) {
    EXPECT_EQ(encode(FormatId::fp16, pow2(-25)), 0x0000u);  // half the smallest subnormal: tie to 0
    EXPECT_EQ(encode(FormatId::fp16, next_above(pow2(-25))), 0x0001u);
    EXPECT_EQ(encode(FormatId::fp16, -pow2(-25)), 0x8000u);  // keeps its sign
    EXPECT_EQ(encode(FormatId::fp16, 1.5f * pow2(-24)), 0x0002u);  // tie, 1 is odd: up
    EXPECT_EQ(encode(FormatId::fp16, 2.5f * pow2(-24)), 0x0002u);  // tie, 2 is even: down
    EXPECT_EQ(encode(FormatId::fp16, 1023.5f * pow2(-24)), 0x0400u);  // rounds up into the normals
    EXPECT_EQ(encode(FormatId::fp16, 1e-8f), 0x0000u);
    EXPECT_EQ(encode(FormatId::fp16, from_bits(0x00000001u)), 0x0000u);  // FP32 subnormal
}

TEST(GoldenFp16, SpecialValues) {
    EXPECT_EQ(encode(FormatId::fp16, -0.0f), 0x8000u);
    EXPECT_EQ(encode(FormatId::fp16, -kInf), 0xfc00u);
    EXPECT_EQ(encode(FormatId::fp16, from_bits(0x7fc00000u)), 0x7e00u);
    EXPECT_EQ(encode(FormatId::fp16, from_bits(0xffc00000u)), 0xfe00u);     // sign kept
    EXPECT_EQ(encode(FormatId::fp16, from_bits(0x7f800001u)), 0x7e00u);     // signalling: quieted
    EXPECT_EQ(encode(FormatId::fp16, from_bits(0x7fa00000u)), 0x7f00u);     // top payload bits kept
    EXPECT_EQ(float_bits(decode(FormatId::fp16, 0x7c01u)), 0x7fc02000u);    // decode quiets, keeps payload
    EXPECT_EQ(float_bits(decode(FormatId::fp16, 0x8000u)), 0x80000000u);
}

TEST(GoldenBf16, RangeEdgesAndOverflow) {
    EXPECT_EQ(encode(FormatId::bf16, 1.0f), 0x3f80u);
    EXPECT_EQ(decode(FormatId::bf16, 0x7f7fu), 3.3895314e38f);
    EXPECT_EQ(encode(FormatId::bf16, from_bits(0x7f7f7fffu)), 0x7f7fu);
    EXPECT_EQ(encode(FormatId::bf16, from_bits(0x7f7f8000u)), 0x7f80u);  // first overflow: tie goes to Inf
    EXPECT_EQ(encode(FormatId::bf16, std::numeric_limits<float>::max()), 0x7f80u);
    EXPECT_EQ(encode(FormatId::bf16, pow2(-126)), 0x0080u);
    EXPECT_EQ(encode(FormatId::bf16, pow2(-133)), 0x0001u);
    EXPECT_EQ(encode(FormatId::bf16, pow2(-134)), 0x0000u);  // tie to 0
    EXPECT_EQ(encode(FormatId::bf16, from_bits(0x00018000u)), 0x0002u);  // 1.5 subnormal steps: tie up to 2
}

TEST(GoldenBf16, TiesAndNan) {
    EXPECT_EQ(encode(FormatId::bf16, from_bits(0x3f808000u)), 0x3f80u);
    EXPECT_EQ(encode(FormatId::bf16, from_bits(0x3f818000u)), 0x3f82u);
    EXPECT_EQ(encode(FormatId::bf16, from_bits(0x3f808001u)), 0x3f81u);
    EXPECT_EQ(encode(FormatId::bf16, from_bits(0xff800001u)), 0xffc0u);
    EXPECT_EQ(encode(FormatId::bf16, 0.1f), 0x3dcdu);
}

TEST(GoldenTf32, RangeEdgesAndTies) {
    // Codes are 19 bits: sign << 18 | exponent << 10 | mantissa.
    EXPECT_EQ(encode(FormatId::tf32, 1.0f), 0x1fc00u);
    EXPECT_EQ(decode(FormatId::tf32, 0x3fbffu), 3.4011621e38f);
    EXPECT_EQ(encode(FormatId::tf32, from_bits(0x7f7fe000u)), 0x3fbffu);  // max itself
    EXPECT_EQ(encode(FormatId::tf32, from_bits(0x7f7fefffu)), 0x3fbffu);
    EXPECT_EQ(encode(FormatId::tf32, from_bits(0x7f7ff000u)), 0x3fc00u);  // first overflow: tie goes to Inf
    EXPECT_EQ(encode(FormatId::tf32, pow2(-136)), 0x00001u);
    EXPECT_EQ(encode(FormatId::tf32, pow2(-137)), 0x00000u);
    EXPECT_EQ(encode(FormatId::tf32, from_bits(0x3f801000u)), 0x1fc00u);  // tie down
    EXPECT_EQ(encode(FormatId::tf32, from_bits(0x3f803000u)), 0x1fc02u);  // tie up
    EXPECT_EQ(encode(FormatId::tf32, -0.0f), 0x40000u);
    EXPECT_EQ(round_to(FormatId::tf32, 0.1f), from_bits(0x3dccc000u));
}

TEST(GoldenE4m3, MaxAndTheTieAt464) {
    EXPECT_EQ(encode(FormatId::e4m3, 448.0f), 0x7eu);
    // 464 is halfway between 448 (mantissa 110, even) and 480 (111, the NaN pattern): stays 448.
    EXPECT_EQ(encode(FormatId::e4m3, 464.0f, Overflow::saturate), 0x7eu);
    EXPECT_EQ(encode(FormatId::e4m3, 464.0f, Overflow::nan), 0x7eu);
    EXPECT_EQ(encode(FormatId::e4m3, next_above(464.0f), Overflow::saturate), 0x7eu);
    EXPECT_EQ(encode(FormatId::e4m3, next_above(464.0f), Overflow::nan), 0x7fu);
    EXPECT_EQ(encode(FormatId::e4m3, -480.0f, Overflow::nan), 0xffu);
    EXPECT_EQ(encode(FormatId::e4m3, kInf, Overflow::saturate), 0x7eu);
    EXPECT_EQ(encode(FormatId::e4m3, -kInf, Overflow::saturate), 0xfeu);
    EXPECT_EQ(encode(FormatId::e4m3, kInf, Overflow::nan), 0x7fu);
    EXPECT_EQ(decode(FormatId::e4m3, 0x7eu), 448.0f);
    EXPECT_TRUE(std::isnan(decode(FormatId::e4m3, 0x7fu)));
    EXPECT_EQ(decode(FormatId::e4m3, 0x78u), 256.0f);  // exponent 1111 is a normal binade in E4M3
}

TEST(GoldenE4m3, SmallValuesAndTies) {
    EXPECT_EQ(encode(FormatId::e4m3, pow2(-6)), 0x08u);
    EXPECT_EQ(encode(FormatId::e4m3, pow2(-9)), 0x01u);
    EXPECT_EQ(encode(FormatId::e4m3, pow2(-10)), 0x00u);
    EXPECT_EQ(encode(FormatId::e4m3, 0.75f * pow2(-9)), 0x01u);
    EXPECT_EQ(encode(FormatId::e4m3, 1.5f * pow2(-9)), 0x02u);
    EXPECT_EQ(encode(FormatId::e4m3, 1.0f), 0x38u);
    EXPECT_EQ(encode(FormatId::e4m3, 1.0625f), 0x38u);  // tie down to 1.0
    EXPECT_EQ(encode(FormatId::e4m3, 1.1875f), 0x3au);  // tie up to 1.25
    EXPECT_EQ(encode(FormatId::e4m3, from_bits(0xffc00000u)), 0xffu);
    EXPECT_EQ(encode(FormatId::e4m3, -0.0f), 0x80u);
}

TEST(GoldenE5m2, MaxAndOverflow) {
    EXPECT_EQ(encode(FormatId::e5m2, 57344.0f), 0x7bu);
    // 61440 = 57344 + 4096 is halfway between 57344 (odd mantissa) and 2^16 (Inf): overflows.
    EXPECT_EQ(encode(FormatId::e5m2, 61440.0f, Overflow::nan), 0x7cu);
    EXPECT_EQ(encode(FormatId::e5m2, 61440.0f, Overflow::saturate), 0x7bu);
    EXPECT_EQ(encode(FormatId::e5m2, next_below(61440.0f), Overflow::nan), 0x7bu);
    EXPECT_EQ(encode(FormatId::e5m2, 1e5f, Overflow::nan), 0x7cu);
    EXPECT_EQ(encode(FormatId::e5m2, kInf, Overflow::saturate), 0x7bu);
    EXPECT_EQ(encode(FormatId::e5m2, -kInf, Overflow::nan), 0xfcu);
    EXPECT_EQ(decode(FormatId::e5m2, 0x7cu), kInf);
}

TEST(GoldenE5m2, SmallValuesAndNan) {
    EXPECT_EQ(encode(FormatId::e5m2, pow2(-14)), 0x04u);
    EXPECT_EQ(encode(FormatId::e5m2, pow2(-16)), 0x01u);
    EXPECT_EQ(encode(FormatId::e5m2, pow2(-17)), 0x00u);
    EXPECT_EQ(encode(FormatId::e5m2, 1.0f), 0x3cu);
    EXPECT_EQ(encode(FormatId::e5m2, 1.125f), 0x3cu);  // tie down
    EXPECT_EQ(encode(FormatId::e5m2, 1.375f), 0x3eu);  // tie up
    EXPECT_EQ(encode(FormatId::e5m2, from_bits(0x7fc00000u)), 0x7eu);
    EXPECT_EQ(encode(FormatId::e5m2, from_bits(0x7fa00000u)), 0x7fu);
    EXPECT_EQ(encode(FormatId::e5m2, from_bits(0xff800001u)), 0xfeu);
}

TEST(GoldenFp32, IsTheIdentity) {
    for (std::uint32_t u : {0x00000000u, 0x80000001u, 0x3dcccccdu, 0x7f7fffffu, 0x7f800000u, 0x7f800001u}) {
        EXPECT_EQ(encode(FormatId::fp32, from_bits(u)), u);
        EXPECT_EQ(float_bits(decode(FormatId::fp32, u)), u);
    }
}

}  // namespace
}  // namespace plab
