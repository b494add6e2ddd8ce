#include <gtest/gtest.h>

#include <cmath>

#include "engine/numeric/bit_fields.h"
#include "engine/numeric/cast_report.h"
#include "engine/numeric/scalar_cast.h"

namespace plab {
namespace {

TEST(Decompose, NormalSubnormalZeroInfNan) {
    const BitFields one = decompose(FormatId::fp16, 0x3c00u);
    EXPECT_FALSE(one.sign);
    EXPECT_EQ(one.exponent_field, 15u);
    EXPECT_EQ(one.exponent, 0);
    EXPECT_EQ(one.mantissa_field, 0u);
    EXPECT_EQ(one.value_class, ValueClass::normal);

    const BitFields tiny = decompose(FormatId::fp16, 0x8001u);
    EXPECT_TRUE(tiny.sign);
    EXPECT_EQ(tiny.exponent_field, 0u);
    EXPECT_EQ(tiny.exponent, -14);
    EXPECT_EQ(tiny.mantissa_field, 1u);
    EXPECT_EQ(tiny.value_class, ValueClass::subnormal);

    EXPECT_EQ(decompose(FormatId::fp16, 0x8000u).value_class, ValueClass::zero);
    EXPECT_EQ(decompose(FormatId::fp16, 0x7c00u).value_class, ValueClass::inf);
    EXPECT_EQ(decompose(FormatId::fp16, 0x7c01u).value_class, ValueClass::nan);
    EXPECT_EQ(decompose(FormatId::e4m3, 0x7fu).value_class, ValueClass::nan);
    EXPECT_EQ(decompose(FormatId::e4m3, 0x7eu).value_class, ValueClass::normal);  // 448, no Inf in E4M3
    EXPECT_EQ(decompose(FormatId::e4m3, 0x7eu).exponent, 8);
    EXPECT_EQ(decompose(FormatId::e5m2, 0x7cu).value_class, ValueClass::inf);

    const BitFields tf = decompose(FormatId::tf32, encode(FormatId::tf32, -1.5f));
    EXPECT_TRUE(tf.sign);
    EXPECT_EQ(tf.exponent_field, 127u);
    EXPECT_EQ(tf.mantissa_field, 0x200u);
}

TEST(Neighbours, StepThroughZeroMaxAndInf) {
    EXPECT_EQ(next_up(FormatId::fp16, 0x3c00u), 0x3c01u);
    EXPECT_EQ(next_down(FormatId::fp16, 0x3c00u), 0x3bffu);
    EXPECT_EQ(next_up(FormatId::fp16, 0x7bffu), 0x7c00u);  // max -> +inf
    EXPECT_EQ(next_up(FormatId::fp16, 0x7c00u), std::nullopt);
    EXPECT_EQ(next_down(FormatId::fp16, 0xfc00u), std::nullopt);
    EXPECT_EQ(next_down(FormatId::fp16, 0x0000u), 0x8001u);
    EXPECT_EQ(next_up(FormatId::fp16, 0x8000u), 0x0001u);
    EXPECT_EQ(next_up(FormatId::fp16, 0x8001u), 0x8000u);
    EXPECT_EQ(next_up(FormatId::fp16, 0x7e00u), std::nullopt);  // NaN has no neighbours
    EXPECT_EQ(next_up(FormatId::e4m3, 0x7eu), std::nullopt);    // 448 is the top
    EXPECT_EQ(next_down(FormatId::e4m3, 0xfeu), std::nullopt);
    EXPECT_EQ(next_down(FormatId::e4m3, 0x7eu), 0x7du);
    EXPECT_EQ(next_up(FormatId::e5m2, 0x7bu), 0x7cu);
}

TEST(Ulp, SpacingAtValues) {
    EXPECT_EQ(ulp(FormatId::fp16, 1.0f), std::ldexp(1.0, -10));
    EXPECT_EQ(ulp(FormatId::fp16, 0.0f), std::ldexp(1.0, -24));
    EXPECT_EQ(ulp(FormatId::fp16, 65504.0f), 32.0);
    EXPECT_EQ(ulp(FormatId::fp16, 1e9f), 32.0);  // beyond the range: the top binade
    EXPECT_EQ(ulp(FormatId::fp16, 0.99999f), std::ldexp(1.0, -10));  // rounds up into 1's binade
    EXPECT_EQ(ulp(FormatId::bf16, 1.0f), std::ldexp(1.0, -7));
    EXPECT_EQ(ulp(FormatId::e4m3, 448.0f), 32.0);
    EXPECT_EQ(ulp(FormatId::fp32, 1.0f), std::ldexp(1.0, -23));
    EXPECT_TRUE(std::isnan(ulp(FormatId::fp16, std::nanf(""))));
}

TEST(HexCode, PadsToTheFormatWidth) {
    EXPECT_EQ(hex_code(FormatId::fp16, 0x3c00u), "0x3c00");
    EXPECT_EQ(hex_code(FormatId::e4m3, 0x7u), "0x07");
    EXPECT_EQ(hex_code(FormatId::tf32, 0x1fc00u), "0x1fc00");
    EXPECT_EQ(hex_code(FormatId::fp32, 0x3f800000u), "0x3f800000");
}

TEST(CastReport, ErrorsAndFlags) {
    const CastReport r = describe_cast(FormatId::fp16, 0.1f);
    EXPECT_EQ(r.value, 0.0999755859375f);
    EXPECT_EQ(r.abs_error, static_cast<double>(0.1f) - 0.0999755859375);
    EXPECT_DOUBLE_EQ(r.rel_error, r.abs_error / static_cast<double>(0.1f));
    EXPECT_FALSE(r.overflowed);
    EXPECT_FALSE(r.flushed_to_zero);
    EXPECT_EQ(r.next_up, 0.10003662109375f);
    EXPECT_EQ(r.next_down, 0.0999145507812f);

    const CastReport big = describe_cast(FormatId::fp16, 65520.0f);
    EXPECT_TRUE(big.overflowed);
    EXPECT_TRUE(std::isinf(big.value));
    EXPECT_TRUE(std::isinf(big.abs_error));

    const CastReport clamped = describe_cast(FormatId::e4m3, 1000.0f, Overflow::saturate);
    EXPECT_TRUE(clamped.overflowed);
    EXPECT_EQ(clamped.value, 448.0f);
    EXPECT_FALSE(describe_cast(FormatId::e4m3, 464.0f).overflowed);  // rounds to 448 as a number

    const CastReport tiny = describe_cast(FormatId::fp16, 1e-8f);
    EXPECT_TRUE(tiny.flushed_to_zero);
    EXPECT_EQ(tiny.rel_error, 1.0);

    const CastReport zero = describe_cast(FormatId::fp16, 0.0f);
    EXPECT_EQ(zero.abs_error, 0.0);
    EXPECT_EQ(zero.rel_error, 0.0);
    EXPECT_TRUE(std::isnan(describe_cast(FormatId::fp16, std::nanf("")).abs_error));
}

}  // namespace
}  // namespace plab
