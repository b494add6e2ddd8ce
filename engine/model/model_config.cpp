#include "engine/model/model_config.h"

#include <cmath>
#include <string>

#include "engine/common/enum_names.h"
#include "engine/common/field_check.h"

namespace plab {

namespace {
constexpr EnumNames<InitKind, 2> kInitKindNames({{{InitKind::kaiming, "kaiming"}, {InitKind::xavier, "xavier"}}});
constexpr EnumNames<ModelKind, 2> kModelKindNames({{{ModelKind::mlp, "mlp"}, {ModelKind::gpt, "gpt"}}});

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
std::string_view model_kind_name(ModelKind kind) { return kModelKindNames.name(kind); }
std::optional<ModelKind> parse_model_kind(std::string_view name) { return kModelKindNames.parse(name); }
std::string model_kind_choices() { return kModelKindNames.choices(); }

void validate(const GptConfig& gpt) {
    // Sized for live training on a CPU; a GPU takes the larger ones.
    check_int_field("model.context", gpt.context, 1, 1024);
    check_int_field("model.width", gpt.width, 1, kMaxWidth);
    check_int_field("model.heads", gpt.heads, 1, gpt.width);
    if (gpt.width % gpt.heads != 0)
        reject_field("model.heads", std::to_string(gpt.heads),
                     "a divisor of model.width (" + std::to_string(gpt.width) + ")");
    check_int_field("model.layers", gpt.layers, 1, 48);
    check_number_field("model.logit_scale", gpt.logit_scale, std::isfinite(gpt.logit_scale) && gpt.logit_scale >= 0.0f,
                       "0 (1/sqrt(width/heads)) or a positive finite number");
    check_number_field("model.embedding_std", gpt.embedding_std,
                       std::isfinite(gpt.embedding_std) && gpt.embedding_std > 0.0f && gpt.embedding_std <= 1000.0f,
                       "finite, > 0 and <= 1000");
}

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

// A hidden layer takes one norm, and only the MLP has hidden layers of its own.
void validate_norms(const ModelConfig& config) {
    if (config.layer_norm && config.batch_norm)
        reject_field("model.batch_norm", "true", "false while model.layer_norm is true (one norm per hidden layer)");
    if (config.batch_norm && config.kind == ModelKind::gpt)
        reject_field("model.batch_norm", "true", "false with model.kind gpt (its blocks carry LayerNorms)");
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
    validate_norms(config);
    if (model_kind_name(config.kind) == "?")
        reject_field("model.kind", std::to_string(static_cast<int>(config.kind)), model_kind_choices());
    if (config.kind == ModelKind::gpt) validate(config.gpt);
    // activation and init are enums: a preset reader rejects unknown names
    // when it parses them, so there is nothing left to check here.
}

}  // namespace plab
