#include "engine/amp/precision_config.h"

#include <algorithm>

#include "engine/common/enum_names.h"

namespace plab {

namespace {

constexpr EnumNames<Recipe, 7> kRecipeNames({{{Recipe::fp32, "fp32"},
                                              {Recipe::tf32, "tf32"},
                                              {Recipe::amp_fp16, "amp-fp16"},
                                              {Recipe::amp_bf16, "amp-bf16"},
                                              {Recipe::fp16_pure, "fp16-pure"},
                                              {Recipe::bf16_pure, "bf16-pure"},
                                              {Recipe::fp8, "fp8"}}});

constexpr EnumNames<Fp32Op, 5> kFp32OpNames({{{Fp32Op::layer_norm, "layer_norm"},
                                              {Fp32Op::batch_norm, "batch_norm"},
                                              {Fp32Op::softmax_cross_entropy, "softmax_cross_entropy"},
                                              {Fp32Op::mse, "mse"},
                                              {Fp32Op::softmax, "softmax"}}});

constexpr EnumNames<Accumulation, 2> kAccumulationNames({{{Accumulation::fp32, "fp32"},
                                                          {Accumulation::fp16, "fp16"}}});

// What a recipe means, in one row: the formats it computes and stores in, and
// the scaler it runs with unless told otherwise.
struct RecipeTraits {
    std::string_view description;
    FormatId compute;
    FormatId weights;
    ScalerKind scaler;
};

RecipeTraits traits(Recipe r) {
    switch (r) {
        case Recipe::fp32:
            return {"FP32 everywhere: the reference run, no rounding below FP32", FormatId::fp32, FormatId::fp32,
                    ScalerKind::none};
        case Recipe::tf32:
            return {"FP32 storage, matmul inputs rounded to TF32's 10-bit mantissa (PyTorch: opt in with "
                    "torch.backends.cuda.matmul.allow_tf32 = True; off by default since 1.12)",
                    FormatId::tf32, FormatId::fp32, ScalerKind::none};
        case Recipe::amp_fp16:
            return {"autocast FP16: FP32 master weights, FP16 matmuls and activations, dynamic loss scaling",
                    FormatId::fp16, FormatId::fp32, ScalerKind::dynamic};
        case Recipe::amp_bf16:
            return {"autocast BF16: FP32 master weights, BF16 matmuls; FP32's range, so no loss scaling",
                    FormatId::bf16, FormatId::fp32, ScalerKind::none};
        case Recipe::fp16_pure:
            return {"weights stored in FP16 too (FP32 master copy optional): small updates can be lost",
                    FormatId::fp16, FormatId::fp16, ScalerKind::dynamic};
        case Recipe::bf16_pure:
            return {"weights stored in BF16 too (FP32 master copy optional): FP32's range, so no loss scaling, "
                    "but 8 bits of precision lose more small updates than FP16's 11",
                    FormatId::bf16, FormatId::bf16, ScalerKind::none};
        case Recipe::fp8:
            return {"FP8: E4M3 matmul inputs forward, E5M2 gradients backward, per-tensor delayed scaling, FP32 "
                    "accumulation",
                    kFp8ForwardFormat, FormatId::fp32, ScalerKind::none};
    }
    return {"?", FormatId::fp32, FormatId::fp32, ScalerKind::none};
}

}  // namespace

std::string_view recipe_name(Recipe r) { return kRecipeNames.name(r); }
std::optional<Recipe> parse_recipe(std::string_view name) { return kRecipeNames.parse(name); }
std::string recipe_choices() { return kRecipeNames.choices(); }
std::string_view recipe_description(Recipe r) { return traits(r).description; }

FormatId recipe_compute_format(Recipe r) { return traits(r).compute; }
FormatId recipe_weight_format(Recipe r) { return traits(r).weights; }
ScalerKind recipe_default_scaler(Recipe r) { return traits(r).scaler; }
bool recipe_uses_fp8(Recipe r) { return r == Recipe::fp8; }

std::string_view fp32_op_name(Fp32Op op) { return kFp32OpNames.name(op); }
std::optional<Fp32Op> parse_fp32_op(std::string_view name) { return kFp32OpNames.parse(name); }
std::string fp32_op_choices() { return kFp32OpNames.choices(); }

std::string_view accumulation_name(Accumulation a) { return kAccumulationNames.name(a); }
std::optional<Accumulation> parse_accumulation(std::string_view name) { return kAccumulationNames.parse(name); }
std::string accumulation_choices() { return kAccumulationNames.choices(); }
FormatId accumulation_format(Accumulation a) { return a == Accumulation::fp16 ? FormatId::fp16 : FormatId::fp32; }
bool recipe_accumulates_fp16(Recipe r) { return !recipe_uses_fp8(r) && recipe_compute_format(r) == FormatId::fp16; }

bool PrecisionConfig::keeps_fp32(Fp32Op op) const {
    return std::find(fp32_ops.begin(), fp32_ops.end(), op) != fp32_ops.end();
}

}  // namespace plab
