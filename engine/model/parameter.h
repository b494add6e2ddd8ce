#pragma once
// One trainable tensor and every copy of it a mixed-precision step keeps.
//
// DESIGN.md, "Mixed precision semantics": the model computes with `value`;
// the GEMMs write this micro-batch's gradient into `grad` in the compute
// format (scaled by the loss scale: what the hardware holds); it is added to
// `grad_sum` (PyTorch's .grad: same dtype as `value`, still scaled); the fused
// unscale writes `master_grad` (FP32, unscaled), which is what clipping and
// the optimizer read. The optimizer updates `master` when there is one (FP16
// weights with FP32 master weights) and copies it into `value`; otherwise it
// updates `value` itself, rounding to its dtype (where updates get lost).
#include <string>

#include "engine/tensor/tensor.h"

namespace plab {

struct Parameter {
    std::string name;    // "fc1.weight"
    Tensor value;        // FP32 (fp32/tf32/AMP recipes) or FP16 (fp16-pure)
    Tensor master;       // FP32 master copy of an FP16 `value`; empty when `value` is the master
    Tensor grad;         // this micro-batch's gradient, compute dtype, scaled
    Tensor grad_sum;     // sum over micro-batches, value's dtype, scaled
    Tensor master_grad;  // FP32, unscaled: clipping and the optimizer read this

    // The tensor the optimizer writes.
    Tensor& target() { return master.empty() ? value : master; }
};

}  // namespace plab
