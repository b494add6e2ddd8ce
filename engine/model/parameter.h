#pragma once
// One trainable tensor and every copy of it a mixed-precision step keeps.
//
// docs/DESIGN.md, "Mixed precision semantics": the model computes with `value`;
// the GEMMs write this micro-batch's gradient into `grad` in the compute
// format (scaled by the loss scale: what the hardware holds); it is added to
// `grad_sum` (PyTorch's .grad: same dtype as `value`, still scaled); the fused
// unscale writes `master_grad` (FP32, unscaled), which is what clipping and
// the optimizer read. The optimizer updates `master` when there is one (FP16
// weights with FP32 master weights) and copies it into `value`; otherwise it
// updates `value` itself, rounding to its dtype (where updates get lost).
#include <string>

#include "engine/backend/backend.h"

namespace plab {

struct Parameter {
    std::string name;    // "fc1.weight"
    Tensor value;        // FP32 (fp32/tf32/AMP recipes), FP16 (fp16-pure) or BF16 (bf16-pure)
    Tensor master;       // FP32 master copy of a 16-bit `value`; empty when `value` is the master
    Tensor grad;         // this micro-batch's gradient, compute dtype, scaled
    Tensor grad_sum;     // sum over micro-batches, value's dtype, scaled
    Tensor master_grad;  // FP32, unscaled: clipping and the optimizer read this

    // The tensor the optimizer writes.
    Tensor& target() { return master.empty() ? value : master; }
    const Tensor& target() const { return master.empty() ? value : master; }
};

// A zeroed parameter of `shape` whose value is stored in `value_format`, with
// an FP32 master copy when master_weights is set and the value is not FP32.
// `grad` is allocated by ensure_grad once the compute format is known.
Parameter make_parameter(Backend& backend, std::string name, Shape shape, FormatId value_format,
                         bool master_weights);
// (Re)allocates p.grad in `compute` when it is missing or of another format.
void ensure_grad(Backend& backend, Parameter& p, FormatId compute);
// Host FP32 values into the optimizer's copy, and through it into `value`.
void set_parameter(Backend& backend, Parameter& p, const float* host);

}  // namespace plab
