#include "engine/model/linear.h"

namespace plab {

Linear::Linear(Backend& backend, std::string name, int in_features, int out_features, FormatId weight_format,
               bool master_weights)
    : weight(make_parameter(backend, name + ".weight", {in_features, out_features}, weight_format, master_weights)),
      bias(make_parameter(backend, name + ".bias", {1, out_features}, weight_format, master_weights)),
      name_(std::move(name)) {}

void Linear::forward(Backend& backend, const Tensor& x, Tensor& y, FormatId compute) const {
    backend.gemm(x, weight.value, y, {.compute = compute, .row_bias = &bias.value});
}

void Linear::backward(Backend& backend, const Tensor& x, const Tensor& dy, Tensor* dx, FormatId compute) {
    ensure_grad(backend, weight, compute);
    ensure_grad(backend, bias, compute);
    backend.gemm(x, dy, weight.grad, {.compute = compute, .trans_a = true});
    backend.column_sums(dy, bias.grad);
    if (dx) backend.gemm(dy, weight.value, *dx, {.compute = compute, .trans_b = true});
}

}  // namespace plab
