#pragma once
// A small decoder-only transformer language model in the shape of GPT-2:
// token + position embeddings, `layers` pre-LayerNorm blocks
// (transformer_block.h), a final LayerNorm and the output head (the token
// embedding transposed when tied, its own Linear otherwise), and the softmax
// cross-entropy of each position's next token.
//
// A batch is `sequences` windows of `context` tokens: ids and targets are
// (sequences x context) x 1 FP32 tensors of token indices, row s*context + t
// holding token t of window s and the token that follows it. The loss is the
// mean over every position, as PyTorch's cross_entropy over the flattened
// logits gives.
//
// Formats come in a PassFormats (pass_formats.h) whose per-layer lists run
// over the model's matmul layers (matmul_names()): each block's q, k, v,
// attn.proj, mlp.fc, mlp.proj, then the head. LayerNorm and the loss store in
// FP32 while on the FP32 list, the softmax computes in FP32 while
// `attention.fp32_softmax`; the residual stream keeps the weights' format.
#include <functional>
#include <string>
#include <vector>

#include "engine/amp/pass_formats.h"
#include "engine/backend/backend.h"
#include "engine/model/buffer_sets.h"
#include "engine/model/layer_norm.h"
#include "engine/model/linear.h"
#include "engine/model/model.h"
#include "engine/model/op_observer.h"
#include "engine/model/transformer_block.h"

namespace plab {

struct GptSpec {
    int vocabulary = 0;  // from the data
    int context = 32;
    int width = 64;  // d_model
    int heads = 4;
    int layers = 2;
    bool tied_head = true;
    // Multiplies Q.K inside the softmax; 0 means the usual 1/sqrt(width/heads).
    float logit_scale = 0.0f;
    FormatId weight_format = FormatId::fp32;  // FP16 or BF16 for the pure recipes
    bool master_weights = true;

    bool operator==(const GptSpec&) const = default;
};

class TinyGpt final : public Model {
public:
    // Throws plab::Error naming the first bad field of `spec`.
    TinyGpt(Backend& backend, const GptSpec& spec);

    const GptSpec& spec() const { return spec_; }
    float logit_scale() const;  // the one the blocks use
    // The matmul layers PassFormats lists run over ("h0.attn.q", ..., "head"),
    // and how many there are: 6 per block and the head.
    std::vector<std::string> matmul_names() const { return layer_names(); }
    int matmul_count() const { return layer_count(); }

    // The mean loss of the batch left in `loss` ({1, 1} FP32) on the backend.
    void forward_into(Backend& backend, const Tensor& ids, const Tensor& targets, const PassFormats& formats,
                      Tensor& loss, OpObserver* observer = nullptr) override;
    // Gradients of (loss * loss_scale) into every parameter's `grad`; call
    // after forward on the same batch.
    void backward(Backend& backend, const Tensor& ids, const Tensor& targets, float loss_scale,
                  OpObserver* observer = nullptr) override;

    // Every parameter in forward order: wte, wpe, each block's, ln_f, the head's.
    std::vector<Parameter*> parameters() override;

    // The matmul layers (model.h): each block's 6, then the head (wte when tied).
    int layer_count() const override { return static_cast<int>(kBlockLinears) * spec_.layers + 1; }
    std::string layer_name(int i) const override;
    const Parameter& layer_weight(int i) const override;
    const Tensor& layer_input(int i, const Tensor& ids) const override;
    const Tensor& activation(int i) const override;
    const Tensor& activation_grad(int i) const override;
    // wte -> the head when tied (its weight), wpe and an untied wte -> 0 (they
    // are tables, telemetry_layers.h), a block's norm -> the layer it feeds,
    // ln_f -> the head.
    int layer_of(const Parameter& p) const override;
    // wte when the head is untied, then wpe.
    std::vector<const Parameter*> tables() const override;
    const Tensor& outputs() const override { return probs(); }
    Parameter& token_embedding() { return wte_; }
    Parameter& position_embedding() { return wpe_; }
    const Parameter& token_embedding() const { return wte_; }
    const Parameter& position_embedding() const { return wpe_; }
    std::vector<TransformerBlock>& blocks() { return blocks_; }
    const std::vector<TransformerBlock>& blocks() const { return blocks_; }
    const LayerNorm& final_norm() const { return ln_f_; }
    // The untied head, or null when the head is wte transposed.
    Linear* head() { return head_ ? &*head_ : nullptr; }
    // Of the last forward: the softmax probabilities of every position (rows x vocabulary).
    const Tensor& probs() const;
    // Of the last forward: the head's output (rows x vocabulary), before the
    // softmax; what greedy decoding takes the argmax of (text_sampler.h).
    const Tensor& logits() const;
    // f(tensor) for every buffer the kept passes hold and the norms' row statistics.
    void for_each_buffer(const std::function<void(const Tensor&)>& f) const override;

    // Per matmul layer, the scales its FP8 matmuls use from the next pass on.
    void set_fp8_scales(std::vector<Fp8Scales> scales) override { fp8_scales_ = std::move(scales); }
    const std::vector<Fp8Scales>& fp8_scales() const override { return fp8_scales_; }

private:
    struct PassKey {
        int rows;
        PassFormats formats;
        bool operator==(const PassKey&) const = default;
    };
    struct PassBuffers {
        std::vector<Tensor> stream;    // the embedding's output, then each block's
        std::vector<Tensor> d_stream;  // the gradient w.r.t. each
        std::vector<BlockFormats> blocks;
        Tensor h_f, logits, probs, d_logits, d_h_f, d_wte_head;
    };
    PassBuffers make_pass(Backend& backend, const PassKey& key) const;
    PassBuffers& pass(const Tensor& ids) const;
    const PassBuffers& last_pass() const;
    // Layer i as (block, which Linear of it); the head is block == layers.
    std::pair<int, BlockLinear> locate(int i) const;
    BlockFormats block_formats(int block, const PassFormats& formats) const;
    BlockFp8 block_fp8(int block, const PassFormats& formats) const;
    const Fp8Scales* fp8_of(std::size_t layer, const PassFormats& formats) const;
    FormatId head_compute(const PassFormats& formats) const { return formats.layer_compute.back(); }
    MatmulFormats head_matmul(const PassFormats& formats) const {
        return formats.matmul(formats.layer_compute.size() - 1);
    }
    FormatId final_norm_format(const PassFormats& formats) const;
    void head_backward(Backend& backend, PassBuffers& b, const PassFormats& formats);
    void notify(OpObserver* observer, Phase phase, std::string_view layer, std::string_view op, const Tensor& out,
                const Tensor* in, float scale) const;

    GptSpec spec_;
    Parameter wte_, wpe_;
    std::vector<TransformerBlock> blocks_;
    LayerNorm ln_f_;
    std::optional<Linear> head_;
    BufferSets<PassKey, PassBuffers> passes_;  // the current one is the last forward's
    std::vector<Fp8Scales> fp8_scales_;
};

// Throws plab::Error naming the first field of `spec` out of range, by its
// preset path: "model.heads" and so on (model_config.h).
void validate(const GptSpec& spec);

}  // namespace plab
