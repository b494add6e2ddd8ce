#include "engine/model/layer_norm.h"

#include <vector>

namespace plab {

LayerNorm::LayerNorm(Backend& backend, std::string name, int features, FormatId weight_format, bool master_weights)
    : gamma(make_parameter(backend, name + ".gamma", {1, features}, weight_format, master_weights)),
      beta(make_parameter(backend, name + ".beta", {1, features}, weight_format, master_weights)),
      name_(std::move(name)) {
    const std::vector<float> ones(static_cast<std::size_t>(features), 1.0f);
    set_parameter(backend, gamma, ones.data());
}

void LayerNorm::forward(Backend& backend, const Tensor& x, Tensor& y) {
    if (mean_.rows() != x.rows()) {
        mean_ = backend.allocate({x.rows(), 1}, FormatId::fp32);
        rstd_ = backend.allocate({x.rows(), 1}, FormatId::fp32);
    }
    backend.layer_norm_forward(x, gamma.value, beta.value, kEps, y, mean_, rstd_);
}

void LayerNorm::backward(Backend& backend, const Tensor& x, const Tensor& dy, Tensor& dx, FormatId grad_format) {
    ensure_grad(backend, gamma, grad_format);
    ensure_grad(backend, beta, grad_format);
    backend.layer_norm_backward(x, gamma.value, mean_, rstd_, dy, dx, gamma.grad, beta.grad);
}

}  // namespace plab
