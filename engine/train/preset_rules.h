#pragma once
// Rules of a RunConfig that both validate() and the preset reader need, kept
// in one place: the ranges of the run's own integer fields, the model's layer
// names, and the formats a per-layer override may name.
#include <string>
#include <string_view>
#include <vector>

#include "engine/model/model_config.h"
#include "engine/numeric/format.h"

namespace plab {

struct IntLimits {
    int lo, hi;
};
inline constexpr IntLimits kStepsLimits{1, 10'000'000};
inline constexpr IntLimits kBatchSizeLimits{1, 65'536};
inline constexpr IntLimits kEvalEveryLimits{1, 10'000'000};
inline constexpr IntLimits kHistEveryLimits{0, 10'000'000};
inline constexpr IntLimits kSampleEveryLimits{0, 10'000'000};
inline constexpr IntLimits kSampleCharsLimits{1, 1000};

// The model's Linear layers, input to output: "fc1" .. "fcN", N = hidden.size() + 1.
std::vector<std::string> model_layer_names(const ModelConfig& model);
// The layers the records and panels show (telemetry_layers.h): those, then
// the model's parameter tables: for a GPT "wte" when its head is untied, then "wpe".
std::vector<std::string> telemetry_layer_names(const ModelConfig& model);
// Whether a layer name is one of those tables ("wte", "wpe").
bool is_table_layer(std::string_view name);

// A layer override computes in one of these (FP8 needs per-tensor scales, so
// it is not a plain override).
bool is_override_format(FormatId f);
std::string override_format_choices();  // "fp32|tf32|fp16|bf16"

}  // namespace plab
