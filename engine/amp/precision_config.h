#pragma once
// Which formats a run computes and stores in: the recipe, and the policy's
// FP32 op list and per-layer overrides (docs/DESIGN.md, "Mixed precision semantics").
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/amp/fp8_scaling.h"
#include "engine/amp/scaler_config.h"
#include "engine/numeric/format.h"

namespace plab {

enum class Recipe { fp32, tf32, amp_fp16, amp_bf16, fp16_pure, bf16_pure, fp8 };
inline constexpr Recipe kAllRecipes[] = {Recipe::fp32,      Recipe::tf32,      Recipe::amp_fp16, Recipe::amp_bf16,
                                         Recipe::fp16_pure, Recipe::bf16_pure, Recipe::fp8};
// "fp32", "tf32", "amp-fp16", "amp-bf16", "fp16-pure", "bf16-pure", "fp8"
std::string_view recipe_name(Recipe r);
std::optional<Recipe> parse_recipe(std::string_view name);
std::string recipe_choices();
std::string_view recipe_description(Recipe r);           // one line for --help and the GUI

// Format matmuls take their inputs in and activations are stored in. For
// fp8 it is the forward inputs' E4M3; gradients go to the backward matmuls in
// E5M2 and activations and gradients are stored in FP32 (recipe_uses_fp8).
FormatId recipe_compute_format(Recipe r);
// The recipe's matmuls take per-tensor scaled FP8 inputs (engine/amp/fp8_tensors.h).
bool recipe_uses_fp8(Recipe r);
// Format the model's weights are stored in (FP16 for fp16-pure, BF16 for
// bf16-pure, else FP32).
FormatId recipe_weight_format(Recipe r);
// The scaler a recipe runs with unless the preset says otherwise: dynamic
// for the FP16 recipes, none for the rest (BF16 has FP32's exponent range).
ScalerKind recipe_default_scaler(Recipe r);

// Ops the policy can keep in FP32 (autocast's FP32 list).
// `softmax` is the attention block's scaled softmax (model/attention.h); a
// list without it (every preset written before it existed) runs that softmax
// in the compute format, which only matters with an attention block.
// `batch_norm` likewise: a list without it runs BatchNorm in the compute
// format, which only matters with model.batch_norm.
enum class Fp32Op { layer_norm, batch_norm, softmax_cross_entropy, mse, softmax };
inline constexpr Fp32Op kAllFp32Ops[] = {Fp32Op::layer_norm, Fp32Op::batch_norm, Fp32Op::softmax_cross_entropy,
                                         Fp32Op::mse, Fp32Op::softmax};
std::string_view fp32_op_name(Fp32Op op);
std::optional<Fp32Op> parse_fp32_op(std::string_view name);
std::string fp32_op_choices();

// What the matmuls sum their products in (precision.accumulate). fp32 is
// what tensor cores do under autocast; fp16 keeps every partial sum in FP16,
// as a GEMM with an FP16 accumulator (cuBLAS's CUBLAS_COMPUTE_16F) does. It
// applies to matmuls whose inputs are FP16, whose products FP32 holds
// exactly, so only the FP16 recipes take it (validate() in run_config.cpp).
enum class Accumulation { fp32, fp16 };
std::string_view accumulation_name(Accumulation a);  // "fp32", "fp16"
std::optional<Accumulation> parse_accumulation(std::string_view name);
std::string accumulation_choices();
FormatId accumulation_format(Accumulation a);
// The recipe's matmul inputs are FP16, so FP16 accumulation is defined for it.
bool recipe_accumulates_fp16(Recipe r);

struct PrecisionConfig {
    Recipe recipe = Recipe::amp_fp16;
    bool master_weights = true;  // fp16-pure and bf16-pure only: keep FP32 master weights
    std::vector<Fp32Op> fp32_ops = {Fp32Op::layer_norm, Fp32Op::batch_norm, Fp32Op::softmax_cross_entropy,
                                    Fp32Op::mse, Fp32Op::softmax};
    // Layer name ("fc2") -> the format that layer computes in instead of the recipe's.
    std::map<std::string, FormatId> layer_overrides;
    Fp8Config fp8;  // fp8 recipe only: per-tensor delayed scaling
    Accumulation accumulate = Accumulation::fp32;

    bool keeps_fp32(Fp32Op op) const;

    bool operator==(const PrecisionConfig&) const = default;
};

}  // namespace plab
