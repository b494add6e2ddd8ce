#include "engine/model/linear.h"

namespace plab {

Linear::Linear(Backend& backend, std::string name, int in_features, int out_features, FormatId weight_format,
               bool master_weights)
    : weight(make_parameter(backend, name + ".weight", {in_features, out_features}, weight_format, master_weights)),
      bias(make_parameter(backend, name + ".bias", {1, out_features}, weight_format, master_weights)),
      name_(std::move(name)) {}

namespace {

// The GEMM input of FP8 tensor t in a layer with these scales; none without FP8.
std::optional<GemmSpec::ScaledInput> fp8_input(const Fp8Scales* fp8, Fp8Tensor t) {
    if (!fp8) return std::nullopt;
    return GemmSpec::ScaledInput{fp8_format(t), fp8->of(t)};
}

}  // namespace

void Linear::forward(Backend& backend, const Tensor& x, Tensor& y, const MatmulFormats& f,
                     const Fp8Scales* fp8) const {
    backend.gemm(x, weight.value, y,
                 {.compute = f.compute,
                  .row_bias = &bias.value,
                  .a_input = fp8_input(fp8, Fp8Tensor::input),
                  .b_input = fp8_input(fp8, Fp8Tensor::weight),
                  .accumulate = f.accumulate});
}

void Linear::backward(Backend& backend, const Tensor& x, const Tensor& dy, Tensor* dx, const MatmulFormats& f,
                      const Fp8Scales* fp8) {
    ensure_grad(backend, weight, f.compute);
    ensure_grad(backend, bias, f.compute);
    const auto grad_input = fp8_input(fp8, Fp8Tensor::grad);
    backend.gemm(x, dy, weight.grad,
                 {.compute = f.compute,
                  .trans_a = true,
                  .a_input = fp8_input(fp8, Fp8Tensor::input),
                  .b_input = grad_input,
                  .accumulate = f.accumulate});
    backend.column_sums(dy, bias.grad);
    if (dx)
        backend.gemm(dy, weight.value, *dx,
                     {.compute = f.compute,
                      .trans_b = true,
                      .a_input = grad_input,
                      .b_input = fp8_input(fp8, Fp8Tensor::weight),
                      .accumulate = f.accumulate});
}

}  // namespace plab
