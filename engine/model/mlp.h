#pragma once
// A multi-layer perceptron: (Linear -> [LayerNorm | BatchNorm] -> activation) per hidden
// layer, a last Linear, and a loss: softmax cross-entropy for classes or MSE
// for regression. Forward keeps what backward needs.
//
// The formats of a pass come from the precision policy (PassFormats): each
// Linear computes in its own format and stores its output, and the gradient
// w.r.t. it, in that format; the norm and the loss compute in FP32 and store
// in FP32 when the policy keeps them on its FP32 list. Parameters keep their
// own storage (parameter.h).
//
// With spec.attention_tokens > 0 a SelfAttention block (attention.h) sits on
// the first hidden layer's output, between fc1 and fc2.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "engine/amp/pass_formats.h"
#include "engine/backend/backend.h"
#include "engine/model/attention.h"
#include "engine/model/batch_norm.h"
#include "engine/model/buffer_sets.h"
#include "engine/model/layer_norm.h"
#include "engine/model/linear.h"
#include "engine/model/model.h"
#include "engine/model/op_observer.h"

namespace plab {

enum class LossKind : std::uint8_t { cross_entropy, mse };

struct MlpSpec {
    std::vector<int> widths;  // input, hidden..., outputs: {2, 64, 64, 3}
    Activation activation = Activation::relu;
    bool layer_norm = false;  // after every hidden Linear, before the activation
    bool batch_norm = false;  // likewise; not with layer_norm
    LossKind loss = LossKind::cross_entropy;
    FormatId weight_format = FormatId::fp32;  // FP16 or BF16 for the pure recipes
    bool master_weights = true;               // FP32 master copies of non-FP32 weights
    int attention_tokens = 0;                 // 0: no attention block
    float attention_logit_scale = 1.0f;
};

class Mlp final : public Model {
public:
    Mlp(Backend& backend, const MlpSpec& spec);

    // The mean loss of the batch x (rows x inputs) against targets (rows x
    // 1: class indices, or regression targets), left in `loss` ({1, 1} FP32)
    // on the backend (Backend::softmax_cross_entropy_into): a training step
    // reads it back with queue_download, without a host round trip;
    // Model::forward reads it at once.
    void forward_into(Backend& backend, const Tensor& x, const Tensor& targets, const PassFormats& formats,
                      Tensor& loss, OpObserver* observer = nullptr) override;
    // Gradients of (loss * loss_scale) into every parameter's `grad`; call
    // after forward() on the same batch.
    void backward(Backend& backend, const Tensor& x, const Tensor& targets, float loss_scale,
                  OpObserver* observer = nullptr) override;

    const MlpSpec& spec() const { return spec_; }
    int layer_count() const override { return static_cast<int>(linears_.size()); }
    std::string layer_name(int i) const override { return linears_.at(static_cast<std::size_t>(i)).name(); }
    const Parameter& layer_weight(int i) const override { return linears_.at(static_cast<std::size_t>(i)).weight; }
    const Tensor& layer_input(int i, const Tensor& x) const override;
    // "fc2.weight" -> 1, "ln1.gamma" or "bn1.gamma" -> 0; the attention block's -> 0, the layer it sits on.
    int layer_of(const Parameter& p) const override;
    std::vector<Linear>& linears() { return linears_; }
    const std::vector<Linear>& linears() const { return linears_; }
    std::vector<LayerNorm>& norms() { return norms_; }
    std::vector<BatchNorm>& batch_norms() { return batch_norms_; }
    const std::vector<BatchNorm>& batch_norms() const { return batch_norms_; }
    SelfAttention* attention() { return attention_ ? &*attention_ : nullptr; }
    // Every parameter in forward order (fc1.weight, fc1.bias, ln1.gamma, ...).
    std::vector<Parameter*> parameters() override;
    // The BatchNorms' running means and variances, in forward order.
    std::vector<Tensor*> running_state() override;

    // Of the last pass, per Linear layer i: its output after the activation
    // (the logits for the last layer) and the gradient w.r.t. its output
    // before the activation (what its backward receives).
    const Tensor& activation(int i) const override;
    const Tensor& activation_grad(int i) const override;
    // Softmax probabilities (classification) or predictions (regression).
    const Tensor& outputs() const override;
    // f(tensor) for every buffer the kept passes hold (one set per batch size)
    // and the norms' statistics: what the memory ledger counts.
    void for_each_buffer(const std::function<void(const Tensor&)>& f) const override;

    // Per Linear layer, the scales its FP8 matmuls use from the next pass on
    // (layers the pass formats keep out of FP8 ignore theirs); all 1 until set.
    void set_fp8_scales(std::vector<Fp8Scales> scales) override { fp8_scales_ = std::move(scales); }
    const std::vector<Fp8Scales>& fp8_scales() const override { return fp8_scales_; }

private:
    struct LayerBuffers {
        Tensor pre;       // x W + b, in the layer's compute format
        Tensor normed;    // LayerNorm(pre) or BatchNorm(pre) (with a norm only)
        Tensor post;      // activation(normed or pre)
        Tensor d_post;    // gradient w.r.t. post, written by the next layer's backward
        Tensor d_normed;  // gradient w.r.t. normed (with a norm only)
        Tensor d_pre;     // gradient w.r.t. pre
    };
    // One pass's buffers for a batch of `rows` in `formats`.
    struct PassKey {
        int rows;
        PassFormats formats;
        bool operator==(const PassKey&) const = default;
    };
    struct PassBuffers {
        std::vector<LayerBuffers> layers;
        Tensor attn_out, attn_dout;  // the block's output (fc2's input) and its gradient
        Tensor probs;
    };
    PassBuffers make_pass(Backend& backend, const PassKey& key) const;
    // The last forward's buffers; an Error before the first.
    PassBuffers& pass() const;
    // The layers of forward, up to the logits (the last layer's pre).
    const Tensor& forward_layers(Backend& backend, const Tensor& x, const PassFormats& formats,
                                 OpObserver* observer);
    bool has_norm() const { return !norms_.empty() || !batch_norms_.empty(); }
    FormatId norm_format(int i, const PassFormats& formats) const;
    // Hidden layer u's norm, whichever kind the spec has: pre into normed,
    // and back, each reported to the observer.
    void norm_forward(Backend& backend, std::size_t u, LayerBuffers& b, FormatId compute, OpObserver* observer);
    void norm_backward(Backend& backend, std::size_t u, LayerBuffers& b, FormatId compute, float loss_scale,
                       OpObserver* observer);
    // The loss's compute format: FP32 on the FP32 list, else the logits'.
    FormatId loss_format(const PassFormats& formats) const;
    const Fp8Scales* fp8_of(std::size_t layer, const PassFormats& formats) const;
    void notify(OpObserver* observer, Phase phase, std::string_view layer, std::string_view op, const Tensor& out,
                const Tensor* in, float scale) const;

    MlpSpec spec_;
    std::vector<Linear> linears_;
    std::vector<LayerNorm> norms_;  // one per hidden layer when spec.layer_norm
    std::vector<BatchNorm> batch_norms_;  // one per hidden layer when spec.batch_norm
    std::optional<SelfAttention> attention_;
    BufferSets<PassKey, PassBuffers> passes_;  // the current one is the last forward's
    std::vector<Fp8Scales> fp8_scales_;
};

}  // namespace plab
