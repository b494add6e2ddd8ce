#pragma once
// A multi-layer perceptron for classification: Linear -> activation -> ...
// -> Linear -> softmax cross-entropy. Forward keeps what backward needs.
//
// `compute` is the step's format: FP32 for the exact twin, FP16/BF16 under
// autocast. Activations and activation gradients are stored in it; the loss
// and softmax run in FP32 (they are on autocast's FP32 list); parameters and
// their gradients stay FP32 (master weights).
#include <vector>

#include "engine/backend/backend.h"
#include "engine/model/linear.h"

namespace plab {

struct MlpSpec {
    std::vector<int> widths;  // input, hidden..., classes: {2, 64, 64, 3}
    Activation activation = Activation::relu;
};

class Mlp {
public:
    Mlp(Backend& backend, const MlpSpec& spec);

    // Mean cross-entropy of the batch x (rows x input) against labels (rows x 1).
    float forward(Backend& backend, const Tensor& x, const Tensor& labels, FormatId compute);
    // Gradients of (loss * loss_scale) into every layer's weight_grad / bias_grad;
    // call after forward() on the same batch.
    void backward(Backend& backend, const Tensor& x, const Tensor& labels, float loss_scale, FormatId compute);

    std::vector<Linear>& layers() { return layers_; }
    const std::vector<Linear>& layers() const { return layers_; }
    const Tensor& probabilities() const { return probs_; }
    const MlpSpec& spec() const { return spec_; }

private:
    // Per-layer buffers of the last forward pass, sized to its batch.
    struct Buffers {
        Tensor pre;   // x W + b
        Tensor post;  // activation(pre); the logits for the last layer are `pre`
        Tensor grad;  // gradient w.r.t. post (for hidden layers) and w.r.t. pre
    };
    void ensure_buffers(Backend& backend, int rows, FormatId compute);

    MlpSpec spec_;
    std::vector<Linear> layers_;
    std::vector<Buffers> buffers_;
    Tensor probs_;
    Tensor logits_grad_;
    int rows_ = -1;
    FormatId compute_ = FormatId::fp32;
};

}  // namespace plab
