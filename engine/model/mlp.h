#pragma once
// A multi-layer perceptron: (Linear -> [LayerNorm] -> activation) per hidden
// layer, a last Linear, and a loss: softmax cross-entropy for classes or MSE
// for regression. Forward keeps what backward needs.
//
// The formats of a pass come from the precision policy (PassFormats): each
// Linear computes in its own format and stores its output, and the gradient
// w.r.t. it, in that format; LayerNorm and the loss compute in FP32 and store
// in FP32 when the policy keeps them on its FP32 list. Parameters keep their
// own storage (parameter.h).
#include <string>
#include <vector>

#include "engine/backend/backend.h"
#include "engine/model/layer_norm.h"
#include "engine/model/linear.h"
#include "engine/model/op_observer.h"

namespace plab {

enum class LossKind : std::uint8_t { cross_entropy, mse };

struct MlpSpec {
    std::vector<int> widths;  // input, hidden..., outputs: {2, 64, 64, 3}
    Activation activation = Activation::relu;
    bool layer_norm = false;  // after every hidden Linear, before the activation
    LossKind loss = LossKind::cross_entropy;
    FormatId weight_format = FormatId::fp32;  // FP16 for fp16-pure
    bool master_weights = true;               // FP32 master copies of non-FP32 weights
};

struct PassFormats {
    std::vector<FormatId> layer_compute;  // one per Linear
    bool fp32_layer_norm = true;
    bool fp32_loss = true;

    static PassFormats uniform(FormatId compute, int layers) {
        return {std::vector<FormatId>(static_cast<std::size_t>(layers), compute), true, true};
    }
    bool operator==(const PassFormats&) const = default;
};

class Mlp {
public:
    Mlp(Backend& backend, const MlpSpec& spec);

    // Mean loss of the batch x (rows x inputs) against targets (rows x 1: class
    // indices, or regression targets).
    float forward(Backend& backend, const Tensor& x, const Tensor& targets, const PassFormats& formats,
                  OpObserver* observer = nullptr);
    // Gradients of (loss * loss_scale) into every parameter's `grad`; call
    // after forward() on the same batch.
    void backward(Backend& backend, const Tensor& x, const Tensor& targets, float loss_scale,
                  OpObserver* observer = nullptr);

    const MlpSpec& spec() const { return spec_; }
    int layer_count() const { return static_cast<int>(linears_.size()); }
    std::vector<Linear>& linears() { return linears_; }
    const std::vector<Linear>& linears() const { return linears_; }
    std::vector<LayerNorm>& norms() { return norms_; }
    // Every parameter in forward order (fc1.weight, fc1.bias, ln1.gamma, ...).
    std::vector<Parameter*> parameters();

    // Of the last pass, per Linear layer i: its output after the activation
    // (the logits for the last layer) and the gradient w.r.t. its output
    // before the activation (what its backward receives).
    const Tensor& activation(int i) const;
    const Tensor& activation_grad(int i) const;
    // Softmax probabilities (classification) or predictions (regression).
    const Tensor& outputs() const;

private:
    struct LayerBuffers {
        Tensor pre;       // x W + b, in the layer's compute format
        Tensor normed;    // LayerNorm(pre) (with layer norm only)
        Tensor post;      // activation(normed or pre)
        Tensor d_post;    // gradient w.r.t. post, written by the next layer's backward
        Tensor d_normed;  // gradient w.r.t. normed (with layer norm only)
        Tensor d_pre;     // gradient w.r.t. pre
    };
    void ensure_buffers(Backend& backend, int rows, const PassFormats& formats);
    FormatId norm_format(int i) const;
    void notify(OpObserver* observer, Phase phase, std::string_view layer, std::string_view op, const Tensor& out,
                const Tensor* in, float scale) const;

    MlpSpec spec_;
    std::vector<Linear> linears_;
    std::vector<LayerNorm> norms_;  // one per hidden layer when spec.layer_norm
    std::vector<LayerBuffers> buffers_;
    Tensor probs_;
    int rows_ = -1;
    PassFormats formats_;
};

}  // namespace plab
