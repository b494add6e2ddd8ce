#pragma once
// The formats each op of a forward and backward pass runs in: what the
// precision policy (precision_policy.h) decides and the model
// (engine/model) follows. Linear i computes in layer_compute[i] and stores
// its output, and the gradient w.r.t. it, in that format; LayerNorm and the
// loss compute and store in FP32 while on the policy's FP32 list.
#include <cstddef>
#include <vector>

#include "engine/numeric/format.h"

namespace plab {

// What a Linear's matmuls round their inputs to and sum their products in.
// FP16 sums (precision.accumulate=fp16) apply only where the inputs are FP16:
// a layer kept in FP32 by an override sums in FP32, as autocast's disabled
// region would.
struct MatmulFormats {
    FormatId compute = FormatId::fp32;
    FormatId accumulate = FormatId::fp32;
    bool operator==(const MatmulFormats&) const = default;
};
inline MatmulFormats matmul_formats(FormatId compute, FormatId accumulate) {
    return {compute, compute == FormatId::fp16 ? accumulate : FormatId::fp32};
}

// The attention block's: its projections' compute format and sums, and
// whether its softmax is on the FP32 list. The token matmuls (scores and
// mix) sum in FP32 whatever `accumulate` says (math_ops.h).
struct AttentionFormats {
    FormatId compute = FormatId::fp32;
    bool fp32_softmax = true;
    FormatId accumulate = FormatId::fp32;
    MatmulFormats matmul() const { return matmul_formats(compute, accumulate); }
    bool operator==(const AttentionFormats&) const = default;
};

struct PassFormats {
    std::vector<FormatId> layer_compute;  // one per Linear
    bool fp32_layer_norm = true;
    bool fp32_batch_norm = true;
    bool fp32_loss = true;  // softmax cross-entropy on the FP32 list
    bool fp32_mse = true;
    // One per Linear, or empty for none: the layer's matmuls take FP8 inputs
    // scaled by the model's fp8_scales() (fp8_tensors.h); its outputs and
    // gradients are then stored in layer_compute.
    std::vector<bool> layer_fp8;
    AttentionFormats attention;  // read only with an attention block
    // The Linears' partial sums where layer_compute is FP16 (matmul_formats).
    FormatId accumulate = FormatId::fp32;

    static PassFormats uniform(FormatId compute, int layers) {
        return {std::vector<FormatId>(static_cast<std::size_t>(layers), compute), true, true, true, true, {},
                {compute, true, FormatId::fp32}, FormatId::fp32};
    }
    bool fp8(std::size_t layer) const { return layer < layer_fp8.size() && layer_fp8[layer]; }
    MatmulFormats matmul(std::size_t layer) const { return matmul_formats(layer_compute[layer], accumulate); }
    bool operator==(const PassFormats&) const = default;
};

}  // namespace plab
