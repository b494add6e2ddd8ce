#include "engine/model/batch_norm.h"

#include <vector>

#include "engine/common/error.h"

namespace plab {

BatchNorm::BatchNorm(Backend& backend, std::string name, int features, FormatId weight_format, bool master_weights)
    : gamma(make_parameter(backend, name + ".gamma", {1, features}, weight_format, master_weights)),
      beta(make_parameter(backend, name + ".beta", {1, features}, weight_format, master_weights)),
      running_mean(backend.allocate({1, features}, FormatId::fp32)),
      running_var(backend.allocate({1, features}, FormatId::fp32)),
      name_(std::move(name)),
      mean_(backend.allocate({1, features}, FormatId::fp32)),
      rstd_(backend.allocate({1, features}, FormatId::fp32)) {
    const std::vector<float> ones(static_cast<std::size_t>(features), 1.0f);
    const std::vector<float> zeros(static_cast<std::size_t>(features), 0.0f);
    set_parameter(backend, gamma, ones.data());
    backend.upload(zeros.data(), running_mean);
    backend.upload(ones.data(), running_var);
}

void BatchNorm::forward(Backend& backend, const Tensor& x, FormatId compute, bool evaluating, Tensor& y) {
    if (evaluating) {
        backend.batch_norm_inference(x, gamma.value, beta.value, running_mean, running_var, kEps, compute, y);
        return;
    }
    backend.batch_norm_forward(x, gamma.value, beta.value, kEps, kMomentum, compute, y, mean_, rstd_, running_mean,
                               running_var);
    trained_rows_ = x.rows();
}

void BatchNorm::backward(Backend& backend, const Tensor& x, const Tensor& dy, FormatId compute, Tensor& dx,
                         FormatId grad_format) {
    if (trained_rows_ != x.rows()) throw Error(name_ + ": backward without a training forward on this batch");
    ensure_grad(backend, gamma, grad_format);
    ensure_grad(backend, beta, grad_format);
    backend.batch_norm_backward(x, gamma.value, mean_, rstd_, dy, compute, dx, gamma.grad, beta.grad);
}

}  // namespace plab
