#include "engine/model/linear.h"

namespace plab {

Linear::Linear(Backend& backend, std::string name, int in_features, int out_features)
    : weight(backend.allocate({in_features, out_features}, FormatId::fp32)),
      bias(backend.allocate({1, out_features}, FormatId::fp32)),
      weight_grad(backend.allocate({in_features, out_features}, FormatId::fp32)),
      bias_grad(backend.allocate({1, out_features}, FormatId::fp32)),
      name_(std::move(name)) {}

void Linear::forward(Backend& backend, const Tensor& x, Tensor& y, FormatId compute) const {
    backend.gemm(x, weight, y, {.compute = compute, .row_bias = &bias});
}

void Linear::backward(Backend& backend, const Tensor& x, const Tensor& dy, Tensor* dx, FormatId compute) {
    backend.gemm(x, dy, weight_grad, {.compute = compute, .trans_a = true});
    backend.column_sums(dy, bias_grad);
    if (dx) backend.gemm(dy, weight, *dx, {.compute = compute, .trans_b = true});
}

}  // namespace plab
