#pragma once
// The network a preset asks for. Input and output widths come from the data
// set (2 inputs, one output per class; 1 and 1 for regression).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/backend/activation.h"

namespace plab {

enum class InitKind { kaiming, xavier };
std::string_view init_kind_name(InitKind kind);  // "kaiming", "xavier"
std::optional<InitKind> parse_init_kind(std::string_view name);
std::string init_kind_choices();

// The network: the MLP of model/mlp.h, or the GPT of model/tiny_gpt.h (on
// the token data sets, data.kind shakespeare or addition).
enum class ModelKind : std::uint8_t { mlp, gpt };
std::string_view model_kind_name(ModelKind kind);  // "mlp", "gpt"
std::optional<ModelKind> parse_model_kind(std::string_view name);
std::string model_kind_choices();

// The GPT's shape (model.kind gpt); the vocabulary comes from the data.
struct GptConfig {
    int context = 32;  // tokens per window
    int width = 64;    // d_model
    int heads = 4;
    int layers = 2;    // blocks
    bool tied_head = true;
    // Multiplies Q.K inside the softmax; 0 means the usual 1/sqrt(width/heads).
    float logit_scale = 0.0f;
    // The token and position embeddings' init, N(0, embedding_std^2) (times
    // model.init_gain): GPT-2's 0.02 by default. Models that scale their
    // embeddings up (by sqrt(d_model), as the original Transformer does) put
    // a residual stream of tens to hundreds into LayerNorm.
    float embedding_std = 0.02f;

    bool operator==(const GptConfig&) const = default;
};

struct ModelConfig {
    ModelKind kind = ModelKind::mlp;
    std::vector<int> hidden = {64, 64};
    Activation activation = Activation::relu;
    bool layer_norm = false;  // LayerNorm after every hidden Linear, before the activation
    bool batch_norm = false;  // BatchNorm likewise; not with layer_norm
    InitKind init = InitKind::kaiming;
    // Multiplies the init's standard deviation (every drawn weight). Below 1
    // the signal and the gradients shrink geometrically with depth: the
    // underflow lessons start from such a net.
    float init_gain = 1.0f;
    // An optional single-head self-attention block on the first hidden
    // layer's output (model/attention.h): that vector read as this many
    // tokens (a divisor of hidden[0]); 0 = no block.
    int attention_tokens = 0;
    // Multiplies the attention scores Q.K inside the softmax; large values
    // make large logits (the FP16 overflow lesson).
    float attention_logit_scale = 1.0f;
    GptConfig gpt{};  // read with kind gpt only

    bool operator==(const ModelConfig&) const = default;
};

// Throws plab::Error naming the field ("model.hidden[1]") and the allowed range.
void validate(const ModelConfig& config);
// The GPT's fields alone ("model.heads", ...).
void validate(const GptConfig& gpt);

}  // namespace plab
