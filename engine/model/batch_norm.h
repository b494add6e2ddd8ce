#pragma once
// Batch normalisation of each feature over the batch's rows, PyTorch's
// BatchNorm1d: a learned gain and shift, and running statistics that the
// training forwards update and an evaluation normalises with. On autocast's
// FP32 list the backend computes it in FP32 whatever its inputs; off it, in
// the compute format the policy gives (its statistics too), and the policy
// decides the format its output is stored in.
#include <functional>
#include <string>

#include "engine/backend/backend.h"
#include "engine/model/parameter.h"

namespace plab {

class BatchNorm {
public:
    static constexpr float kEps = 1e-5f;      // PyTorch's default
    static constexpr float kMomentum = 0.1f;  // PyTorch's default

    BatchNorm(Backend& backend, std::string name, int features, FormatId weight_format, bool master_weights);

    const std::string& name() const { return name_; }
    // y = normalised x computed in `compute`, rounded to y's dtype. Training:
    // with the batch's statistics, kept for backward, and the running ones
    // updated. Evaluating: with the running statistics, changing nothing.
    void forward(Backend& backend, const Tensor& x, FormatId compute, bool evaluating, Tensor& y);
    // In `compute`, after a training forward on this batch; dx rounded to its
    // dtype; gamma.grad and beta.grad in `grad_format`.
    void backward(Backend& backend, const Tensor& x, const Tensor& dy, FormatId compute, Tensor& dx,
                  FormatId grad_format);

    Parameter gamma;  // 1 x features, initialised to 1
    Parameter beta;   // 1 x features, initialised to 0
    // 1 x features FP32, 0 and 1 at first, as PyTorch's.
    Tensor running_mean, running_var;
    // Of the last training forward: each feature's 1 / sqrt(var + eps) (1 x
    // features, FP32 tensor). 0 marks a feature whose variance was Inf.
    const Tensor& last_rstd() const { return rstd_; }

    // f(tensor) for the batch and running statistics.
    void for_each_stat(const std::function<void(const Tensor&)>& f) const {
        for (const Tensor* t : {&mean_, &rstd_, &running_mean, &running_var}) f(*t);
    }

private:
    std::string name_;
    Tensor mean_, rstd_;     // of the last training forward, 1 x features FP32
    int trained_rows_ = 0;   // that forward's batch rows; 0 before the first
};

}  // namespace plab
