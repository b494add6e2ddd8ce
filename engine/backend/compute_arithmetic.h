#pragma once
// The arithmetic of an op that autocast keeps on its FP32 list, taken off
// it: each step an FP32 operation whose result is rounded to the compute
// format, as a kernel that keeps its intermediates in FP16 or BF16 gives.
// LayerNorm (layer_norm_math.h), BatchNorm (batch_norm_math.h) and the
// losses (loss_math.h) are written once over these and run in either.
#include "engine/common/host_device.h"
#include "engine/numeric/fast_cast.h"

namespace plab {

// Plain FP32 arithmetic: the CPU's fast path, free of any per-value branch.
struct Fp32Arithmetic {
    PLAB_HD float operator()(float v) const { return v; }
};

// Each result rounded to `compute` (an IEEE format overflows to Inf).
struct ComputeArithmetic {
    FormatId compute;
    PLAB_HD float operator()(float v) const { return round_fast(compute, v); }
};

// Runs `op` in the arithmetic of `compute`: plain FP32, or each result
// rounded to the compute format (an op off autocast's FP32 list).
template <typename Op>
void in_arithmetic(FormatId compute, Op&& op) {
    if (compute == FormatId::fp32)
        op(Fp32Arithmetic{});
    else
        op(ComputeArithmetic{compute});
}

}  // namespace plab
