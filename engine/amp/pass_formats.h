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

// The attention block's: its projections' compute format, and whether its
// softmax is on the FP32 list.
struct AttentionFormats {
    FormatId compute = FormatId::fp32;
    bool fp32_softmax = true;
    bool operator==(const AttentionFormats&) const = default;
};

struct PassFormats {
    std::vector<FormatId> layer_compute;  // one per Linear
    bool fp32_layer_norm = true;
    bool fp32_loss = true;  // softmax cross-entropy on the FP32 list
    bool fp32_mse = true;
    // One per Linear, or empty for none: the layer's matmuls take FP8 inputs
    // scaled by the model's fp8_scales() (fp8_tensors.h); its outputs and
    // gradients are then stored in layer_compute.
    std::vector<bool> layer_fp8;
    AttentionFormats attention;  // read only with an attention block

    static PassFormats uniform(FormatId compute, int layers) {
        return {std::vector<FormatId>(static_cast<std::size_t>(layers), compute), true, true, true, {}, {compute, true}};
    }
    bool fp8(std::size_t layer) const { return layer < layer_fp8.size() && layer_fp8[layer]; }
    bool operator==(const PassFormats&) const = default;
};

}  // namespace plab
