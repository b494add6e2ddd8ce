#include "engine/model/mlp.h"

#include "engine/common/error.h"

namespace plab {

Mlp::Mlp(Backend& backend, const MlpSpec& spec) : spec_(spec) {
    if (spec.widths.size() < 2) throw Error("model.widths: need at least an input and an output width");
    for (std::size_t i = 0; i + 1 < spec.widths.size(); ++i)
        layers_.emplace_back(backend, "fc" + std::to_string(i + 1), spec.widths[i], spec.widths[i + 1]);
}

void Mlp::ensure_buffers(Backend& backend, int rows, FormatId compute) {
    if (rows == rows_ && compute == compute_) return;
    buffers_.clear();
    for (const Linear& layer : layers_) {
        const Shape s{rows, layer.out_features()};
        buffers_.push_back({backend.allocate(s, compute), backend.allocate(s, compute), backend.allocate(s, compute)});
    }
    probs_ = backend.allocate({rows, layers_.back().out_features()}, FormatId::fp32);
    logits_grad_ = backend.allocate({rows, layers_.back().out_features()}, compute);
    rows_ = rows;
    compute_ = compute;
}

float Mlp::forward(Backend& backend, const Tensor& x, const Tensor& labels, FormatId compute) {
    ensure_buffers(backend, x.rows(), compute);
    const Tensor* input = &x;
    for (std::size_t i = 0; i < layers_.size(); ++i) {
        layers_[i].forward(backend, *input, buffers_[i].pre, compute);
        if (i + 1 < layers_.size()) {
            backend.activation_forward(spec_.activation, buffers_[i].pre, buffers_[i].post);
            input = &buffers_[i].post;
        }
    }
    return backend.softmax_cross_entropy(buffers_.back().pre, labels, probs_);
}

void Mlp::backward(Backend& backend, const Tensor& x, const Tensor& labels, float loss_scale, FormatId compute) {
    if (rows_ != x.rows() || compute_ != compute) throw Error("Mlp::backward: call forward on this batch first");
    backend.softmax_cross_entropy_backward(probs_, labels, loss_scale, logits_grad_);
    const Tensor* grad = &logits_grad_;  // w.r.t. the current layer's pre-activation
    for (std::size_t i = layers_.size(); i-- > 0;) {
        const Tensor& input = i == 0 ? x : buffers_[i - 1].post;
        Tensor* input_grad = i == 0 ? nullptr : &buffers_[i - 1].grad;
        layers_[i].backward(backend, input, *grad, input_grad, compute);
        if (input_grad) {
            // Through the activation, in place: grad w.r.t. post becomes grad w.r.t. pre.
            backend.activation_backward(spec_.activation, buffers_[i - 1].pre, *input_grad, *input_grad);
            grad = input_grad;
        }
    }
}

}  // namespace plab
