#pragma once
// What a framework (PyTorch, eager) holds for a training step of a model
// under each recipe, by class and format, from the model's shape alone
// (model_shape.h). This is not the lab's own layout (memory_ledger.h), which
// keeps extra gradient buffers in every recipe for its telemetry and twin;
// this is what the articles' memory claims are about:
// - fp32, tf32: FP32 weights and gradients, FP32 activations (TF32 changes
//   how matmuls round their inputs, not what is stored);
// - amp-fp16, amp-bf16 (autocast): FP32 weights, the 16-bit copies autocast
//   casts and caches for the forward pass of every Linear's weight and bias,
//   FP32 gradients (a gradient takes its parameter's dtype), activations in
//   16 bits except those the recipe's FP32 list keeps;
// - fp16-pure, bf16-pure: 16-bit weights, gradients and activations, and
//   with master weights FP32 masters and their FP32 gradients as well;
// - fp8 (the lab's recipe): FP32 weights, gradients and activations, and an
//   E4M3 copy of every Linear weight for the matmuls.
// Optimizer state: AdamW two moments per parameter, SGD with momentum one
// buffer, plain SGD none; FP32 wherever FP32 weights are stepped, and the
// weights' own format for a pure recipe without masters (torch.optim makes
// its state like the parameter).
// Not counted: the batch, the backward pass's transient buffers, workspace,
// the allocator's rounding, and the CUDA context.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/amp/precision_config.h"
#include "engine/numeric/format.h"
#include "engine/optim/optimizer_config.h"
#include "engine/train/model_shape.h"

namespace plab {

enum class HeldClass : std::uint8_t { weights, weight_copies, gradients, optimizer_state, activations };
inline constexpr HeldClass kHeldClasses[] = {HeldClass::weights, HeldClass::weight_copies, HeldClass::gradients,
                                             HeldClass::optimizer_state, HeldClass::activations};
std::string_view held_class_name(HeldClass c);  // "weights", "16-bit/FP8 copies", ...

struct HeldLine {
    HeldClass held_class;
    FormatId format;
    std::string what;  // "FP32 master weights", "AdamW moments m and v", "LayerNorm inputs", ...
    std::int64_t elements = 0;
    std::int64_t bytes() const { return elements * storage_bytes(format); }
};

struct FrameworkLedger {
    Recipe recipe;
    std::vector<HeldLine> lines;
    std::int64_t bytes(HeldClass c) const;
    // Weights, their copies, gradients and optimizer state: what scales with
    // the parameters, not the batch.
    std::int64_t parameter_side_bytes() const;
    std::int64_t total_bytes() const;
};

// `precision` gives the recipe, the FP32 op list and (pure recipes) whether
// master weights are kept.
FrameworkLedger framework_ledger(const ModelShape& shape, const PrecisionConfig& precision,
                                 const OptimizerConfig& optimizer);

}  // namespace plab
