#include "engine/model/model_config.h"

#include <cmath>
#include <string>

#include "engine/common/enum_names.h"
#include "engine/common/field_check.h"

namespace plab {

namespace {
constexpr EnumNames<InitKind, 2> kInitKindNames({{{InitKind::kaiming, "kaiming"}, {InitKind::xavier, "xavier"}}});

// Wide enough for every toy network the lab draws, small enough that one
// step stays well within the 1000 steps/s budget on two CPU cores.
constexpr int kMaxHiddenLayers = 8;
constexpr int kMaxWidth = 4096;
// A gain of 100 already overflows FP32 within a few layers; more teaches nothing.
constexpr float kMaxInitGain = 100.0f;
}  // namespace

std::string_view init_kind_name(InitKind kind) { return kInitKindNames.name(kind); }
std::optional<InitKind> parse_init_kind(std::string_view name) { return kInitKindNames.parse(name); }
std::string init_kind_choices() { return kInitKindNames.choices(); }

namespace {

constexpr int kMaxAttentionTokens = 64;

void validate_attention(const ModelConfig& config) {
    const int tokens = config.attention_tokens;
    check_int_field("model.attention_tokens", tokens, 0, kMaxAttentionTokens);
    const float scale = config.attention_logit_scale;
    check_number_field("model.attention_logit_scale", scale, std::isfinite(scale) && scale > 0.0f, "finite and > 0");
    if (tokens == 0) return;
    if (config.hidden.empty())
        reject_field("model.attention_tokens", std::to_string(tokens),
                     "0 without a hidden layer (the block sits on model.hidden[0])");
    if (config.hidden[0] % tokens != 0)
        reject_field("model.attention_tokens", std::to_string(tokens),
                     "0 or a divisor of model.hidden[0] = " + std::to_string(config.hidden[0]));
}

}  // namespace

void validate(const ModelConfig& config) {
    const auto layers = static_cast<long long>(config.hidden.size());
    if (layers > kMaxHiddenLayers)
        reject_field("model.hidden", std::to_string(layers) + " widths",
                     "0.." + std::to_string(kMaxHiddenLayers) + " widths");
    for (std::size_t i = 0; i < config.hidden.size(); ++i)
        check_int_field("model.hidden[" + std::to_string(i) + "]", config.hidden[i], 1, kMaxWidth);
    const float gain = config.init_gain;
    check_number_field("model.init_gain", gain, gain > 0.0f && gain <= kMaxInitGain,
                       "> 0 and <= " + shortest_number(kMaxInitGain));
    validate_attention(config);
    // activation and init are enums: a preset reader rejects unknown names
    // when it parses them, so there is nothing left to check here.
}

}  // namespace plab
