// Recipes and the FP32 op list (engine/amp/precision_config.cpp), against the
// table in docs/DESIGN.md, "Mixed precision semantics", written out by hand.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "engine/amp/precision_config.h"

namespace plab {
namespace {

TEST(Recipes, TableFromTheDesign) {
    const struct {
        Recipe recipe;
        const char* name;
        FormatId compute, weights;
        ScalerKind scaler;
    } rows[] = {
        {Recipe::fp32, "fp32", FormatId::fp32, FormatId::fp32, ScalerKind::none},
        {Recipe::tf32, "tf32", FormatId::tf32, FormatId::fp32, ScalerKind::none},
        {Recipe::amp_fp16, "amp-fp16", FormatId::fp16, FormatId::fp32, ScalerKind::dynamic},
        {Recipe::amp_bf16, "amp-bf16", FormatId::bf16, FormatId::fp32, ScalerKind::none},
        {Recipe::fp16_pure, "fp16-pure", FormatId::fp16, FormatId::fp16, ScalerKind::dynamic},
        {Recipe::bf16_pure, "bf16-pure", FormatId::bf16, FormatId::bf16, ScalerKind::none},
        {Recipe::fp8, "fp8", FormatId::e4m3, FormatId::fp32, ScalerKind::none},
    };
    std::set<std::string> descriptions;
    for (const auto& row : rows) {
        SCOPED_TRACE(row.name);
        EXPECT_EQ(recipe_name(row.recipe), row.name);
        EXPECT_EQ(parse_recipe(row.name), row.recipe);
        EXPECT_EQ(recipe_compute_format(row.recipe), row.compute);
        EXPECT_EQ(recipe_weight_format(row.recipe), row.weights);
        EXPECT_EQ(recipe_default_scaler(row.recipe), row.scaler);
        const std::string description(recipe_description(row.recipe));
        EXPECT_GT(description.size(), 20u);
        EXPECT_EQ(description.find('\n'), std::string::npos);
        descriptions.insert(description);
    }
    EXPECT_EQ(descriptions.size(), 7u);
    EXPECT_EQ(recipe_choices(), "fp32|tf32|amp-fp16|amp-bf16|fp16-pure|bf16-pure|fp8");
    EXPECT_EQ(parse_recipe("amp_fp16"), std::nullopt);
    EXPECT_EQ(parse_recipe("FP32"), std::nullopt);
}

TEST(Recipes, Fp32OpList) {
    EXPECT_EQ(fp32_op_choices(), "layer_norm|batch_norm|softmax_cross_entropy|mse|softmax");
    for (Fp32Op op : kAllFp32Ops) EXPECT_EQ(parse_fp32_op(fp32_op_name(op)), op);
    EXPECT_EQ(parse_fp32_op("softmax"), Fp32Op::softmax);  // the attention block's
    EXPECT_EQ(parse_fp32_op("exp"), std::nullopt);

    PrecisionConfig p;  // autocast's list: all five by default
    for (Fp32Op op : kAllFp32Ops) EXPECT_TRUE(p.keeps_fp32(op));
    p.fp32_ops = {Fp32Op::mse};
    EXPECT_FALSE(p.keeps_fp32(Fp32Op::layer_norm));
    EXPECT_FALSE(p.keeps_fp32(Fp32Op::softmax_cross_entropy));
    EXPECT_TRUE(p.keeps_fp32(Fp32Op::mse));
    p.fp32_ops.clear();
    EXPECT_FALSE(p.keeps_fp32(Fp32Op::mse));
}

}  // namespace
}  // namespace plab
