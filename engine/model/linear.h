#pragma once
// A fully connected layer y = x W + b on a Backend.
//
// The step's compute format (FP32 for the twin, FP16/BF16 under autocast, or
// a per-layer override) decides how the GEMMs round their inputs and in which
// format they write: y, the input gradient and the weight and bias gradients
// (`grad` of each Parameter, scaled by the loss scale like everything in
// backward). Parameter storage is described in parameter.h.
#include <string>

#include "engine/backend/backend.h"
#include "engine/amp/fp8_tensors.h"
#include "engine/amp/pass_formats.h"
#include "engine/model/parameter.h"

namespace plab {

class Linear {
public:
    Linear(Backend& backend, std::string name, int in_features, int out_features, FormatId weight_format,
           bool master_weights);

    const std::string& name() const { return name_; }
    int in_features() const { return weight.value.rows(); }
    int out_features() const { return weight.value.cols(); }

    // y (rows x out) = x W + b: inputs rounded to f.compute, products summed
    // in f.accumulate (GemmSpec), the bias added in FP32 before the single
    // rounding to y's dtype. With `fp8`, x and W are instead scaled and cast
    // to E4M3 (engine/amp/fp8_tensors.h).
    void forward(Backend& backend, const Tensor& x, Tensor& y, const MatmulFormats& f,
                 const Fp8Scales* fp8 = nullptr) const;
    // From dy (gradient w.r.t. y): weight.grad = x^T dy and bias.grad = column
    // sums of dy, both in f.compute; and, when dx is given, dx = dy W^T rounded
    // to dx's dtype. Both matmuls sum in f.accumulate; the bias gradient's
    // column sums stay FP32. With `fp8`, dy is scaled and cast to E5M2 for both
    // matmuls, x and W to E4M3 as in forward; the bias gradient sums dy as held.
    void backward(Backend& backend, const Tensor& x, const Tensor& dy, Tensor* dx, const MatmulFormats& f,
                  const Fp8Scales* fp8 = nullptr);

    Parameter weight;  // in x out
    Parameter bias;    // 1 x out

private:
    std::string name_;
};

}  // namespace plab
