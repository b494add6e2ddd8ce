#include "engine/model/layer_norm.h"

#include <vector>

#include "engine/common/error.h"

namespace plab {

LayerNorm::LayerNorm(Backend& backend, std::string name, int features, FormatId weight_format, bool master_weights)
    : gamma(make_parameter(backend, name + ".gamma", {1, features}, weight_format, master_weights)),
      beta(make_parameter(backend, name + ".beta", {1, features}, weight_format, master_weights)),
      name_(std::move(name)) {
    const std::vector<float> ones(static_cast<std::size_t>(features), 1.0f);
    set_parameter(backend, gamma, ones.data());
}

void LayerNorm::forward(Backend& backend, const Tensor& x, FormatId compute, Tensor& y) {
    RowStats& s = stats_.use(x.rows(), [&](int rows) {
        return RowStats{backend.allocate({rows, 1}, FormatId::fp32), backend.allocate({rows, 1}, FormatId::fp32)};
    });
    backend.layer_norm_forward(x, gamma.value, beta.value, kEps, compute, y, s.mean, s.rstd);
}

void LayerNorm::backward(Backend& backend, const Tensor& x, const Tensor& dy, FormatId compute, Tensor& dx,
                         FormatId grad_format) {
    const RowStats* s = stats_.current();
    if (!s || s->mean.rows() != x.rows()) throw Error(name_ + ": backward without a forward on this batch");
    ensure_grad(backend, gamma, grad_format);
    ensure_grad(backend, beta, grad_format);
    backend.layer_norm_backward(x, gamma.value, s->mean, s->rstd, dy, compute, dx, gamma.grad, beta.grad);
}

}  // namespace plab
