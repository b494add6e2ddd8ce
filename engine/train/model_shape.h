#pragma once
// A model as a framework's allocator sees it, from its shape alone: the
// parameters by group and the activations its forward pass saves for the
// backward pass, for one batch. Nothing is allocated, so a model far too
// large to train here (BERT-Large) can be sized beside the preset's own.
//
// What autograd saves, per op, as PyTorch's kernels do:
// - a Linear saves its input (the weight is the parameter, or autocast's
//   copy of it, counted with the parameters);
// - LayerNorm saves its input, and a mean and a reciprocal deviation per row
//   in FP32 whatever the input's format; BatchNorm likewise, its statistics
//   per feature, and it keeps a running mean and variance per feature as
//   buffers (no gradient, no optimizer state);
// - GELU saves its input; ReLU and Tanh save their output, which is also the
//   next Linear's input and counted there (Tanh at the end of BERT's pooler
//   has no next Linear and is counted itself); identity saves nothing;
// - attention saves its Q, K and V projections, the softmax's probabilities
//   (tokens x tokens per head and query) and the mixed values the output
//   projection reads; q, k and v read one input, counted once;
// - softmax cross-entropy saves its log-probabilities, MSE its predictions.
// A tensor is counted once, in the format its producer stores it. Not
// counted: the inputs and targets of the batch, dropout masks (the lab's
// models have none), and the extra copies autocast makes when an op on its
// FP32 list feeds a matmul (the probabilities cast again for P.V).
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/amp/precision_config.h"
#include "engine/train/run_config.h"

namespace plab {

// How a matmul reads a parameter: autocast casts what a Linear reads (its
// weight and bias) to 16 bits and caches the copy for the step; the fp8
// recipe casts only the weight, to E4M3.
enum class ParameterUse : std::uint8_t { matmul_weight, matmul_bias, other };

struct ParameterGroup {
    std::string what;  // "Linear weights", "LayerNorm gains and biases", ...
    std::int64_t elements = 0;
    ParameterUse use = ParameterUse::other;
};

struct SavedActivation {
    std::string what;  // "Linear inputs", "attention probabilities", ...
    std::int64_t elements = 0;
    // The op on autocast's FP32 list that saves it, if one does: it is then
    // FP32 while the recipe's policy keeps that op in FP32.
    std::optional<Fp32Op> fp32_op;
    bool always_fp32 = false;  // LayerNorm's row statistics
};

struct ModelShape {
    std::string name;  // "BERT-Large (24 layers, ...)", "the preset's 2-64-64-3 MLP"
    std::vector<ParameterGroup> parameters;
    std::vector<SavedActivation> saved;
    std::int64_t buffers = 0;  // BatchNorm's running means and variances
    std::int64_t parameter_count() const;
    std::int64_t parameter_count(ParameterUse use) const;
    std::int64_t saved_count() const;
};

// The lab's MLP (model/mlp.h) over `rows` rows: widths from inputs to
// outputs, classes > 0 for cross-entropy (else MSE).
struct MlpShapeSpec {
    std::vector<int> widths;
    Activation activation = Activation::relu;
    bool layer_norm = false;
    bool batch_norm = false;
    int attention_tokens = 0;  // the optional block on the first hidden layer's output
    bool classes = true;
    int rows = 0;
};
ModelShape mlp_shape(const MlpShapeSpec& spec);

// A stack of encoder or decoder blocks (two LayerNorms, q, k, v, an output
// projection and a GELU MLP of `ffn` width each) over `sequences` sequences
// of `tokens`.
struct TransformerShapeSpec {
    int layers = 0;
    int width = 0;  // d_model
    int heads = 0;
    int ffn = 0;
    int vocabulary = 0;
    int positions = 0;  // rows of the position embedding
    int sequences = 0;  // the batch
    int tokens = 0;     // per sequence
};

// The lab's GPT (model/tiny_gpt.h): embeddings, blocks, a final LayerNorm,
// the head (the token embedding when tied) and the cross-entropy.
ModelShape gpt_shape(const TransformerShapeSpec& spec, bool tied_head);

// BERT-Large as Hugging Face's BertModel builds it: word, position (512) and
// token-type (2) embeddings with a LayerNorm, 24 post-LayerNorm blocks of
// width 1024, 16 heads and FFN 4096 over a 30522-token vocabulary, and the
// pooler (a Linear and Tanh on the first token). No pre-training heads.
inline constexpr TransformerShapeSpec kBertLarge{
    .layers = 24, .width = 1024, .heads = 16, .ffn = 4096, .vocabulary = 30522, .positions = 512};
ModelShape bert_large_shape(int sequences, int tokens);

// The model of a run's preset, its data set's shape taken from generating
// it, for one training batch (batch_size rows, or sequences for the GPT).
ModelShape preset_model_shape(const RunConfig& config);

}  // namespace plab
