// Which matmuls precision.accumulate=fp16 reaches: those whose inputs the
// policy rounds to FP16, never a layer an override keeps in another format,
// and never the FP32 twin.
#include <gtest/gtest.h>

#include "engine/amp/precision_policy.h"

namespace plab {
namespace {

TEST(MatmulAccumulation, Fp16SumsOnlyWhereTheInputsAreFp16) {
    PrecisionConfig config;
    config.recipe = Recipe::amp_fp16;
    config.accumulate = Accumulation::fp16;
    config.layer_overrides = {{"fc2", FormatId::fp32}, {"fc3", FormatId::bf16}};
    const PassFormats mixed = mixed_pass_formats(config, 4);
    EXPECT_EQ(mixed.matmul(0), (MatmulFormats{FormatId::fp16, FormatId::fp16}));
    EXPECT_EQ(mixed.matmul(1), (MatmulFormats{FormatId::fp32, FormatId::fp32}));
    EXPECT_EQ(mixed.matmul(2), (MatmulFormats{FormatId::bf16, FormatId::fp32}));
    EXPECT_EQ(mixed.matmul(3), (MatmulFormats{FormatId::fp16, FormatId::fp16}));
    EXPECT_EQ(mixed.attention.matmul(), (MatmulFormats{FormatId::fp16, FormatId::fp16}));
    const PassFormats twin = twin_pass_formats(4);
    for (std::size_t i = 0; i < 4; ++i) EXPECT_EQ(twin.matmul(i).accumulate, FormatId::fp32);
}

TEST(MatmulAccumulation, Fp32IsTheDefault) {
    PrecisionConfig config;
    config.recipe = Recipe::fp16_pure;
    const PassFormats mixed = mixed_pass_formats(config, 2);
    EXPECT_EQ(mixed.matmul(0), (MatmulFormats{FormatId::fp16, FormatId::fp32}));
    EXPECT_EQ(mixed.attention.matmul().accumulate, FormatId::fp32);
}

}  // namespace
}  // namespace plab
