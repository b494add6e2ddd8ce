#pragma once
// A fully connected layer y = x W + b on a Backend.
//
// The layer owns its FP32 master parameters and their FP32 gradients. The
// caller says in which format the step computes (FP32 for the twin, FP16 or
// BF16 under autocast): the GEMMs round their inputs to that format and the
// activations and activation gradients they write are tensors of that format.
#include <string>

#include "engine/backend/backend.h"

namespace plab {

class Linear {
public:
    Linear(Backend& backend, std::string name, int in_features, int out_features);

    const std::string& name() const { return name_; }
    int in_features() const { return weight.rows(); }
    int out_features() const { return weight.cols(); }

    // y (rows x out) = x W + b, rounded to y's dtype; GEMM inputs rounded to `compute`.
    void forward(Backend& backend, const Tensor& x, Tensor& y, FormatId compute) const;
    // From dy: weight_grad = x^T dy and bias_grad = column sums of dy (both
    // FP32, accumulated in FP32 from `compute`-rounded inputs); and, when dx
    // is given, dx = dy W^T rounded to dx's dtype.
    void backward(Backend& backend, const Tensor& x, const Tensor& dy, Tensor* dx, FormatId compute);

    Tensor weight;       // in x out, FP32 master
    Tensor bias;         // 1 x out, FP32 master
    Tensor weight_grad;  // in x out, FP32
    Tensor bias_grad;    // 1 x out, FP32

private:
    std::string name_;
};

}  // namespace plab
