#include "engine/train/framework_ledger.h"

#include <numeric>

#include "engine/amp/fp8_tensors.h"

namespace plab {

namespace {

using I = std::int64_t;

// The format a recipe stores what it computes in: 16 bits for the AMP and
// pure recipes, FP32 otherwise (TF32 rounds matmul inputs and stores FP32;
// the fp8 recipe stores its activations in FP32).
FormatId stored_compute_format(Recipe r) {
    const FormatId compute = recipe_compute_format(r);
    return !recipe_uses_fp8(r) && storage_bytes(compute) == 2 ? compute : FormatId::fp32;
}

int optimizer_tensors(const OptimizerConfig& o) {
    if (o.kind == OptimizerKind::adamw) return 2;
    return o.momentum != 0.0f ? 1 : 0;
}

std::string optimizer_what(const OptimizerConfig& o) {
    return o.kind == OptimizerKind::adamw ? "AdamW moments m and v" : "SGD momentum buffers";
}

class LedgerBuilder {
public:
    explicit LedgerBuilder(Recipe r) { ledger_.recipe = r; }
    void add(HeldClass c, FormatId f, std::string what, I elements) {
        if (elements > 0) ledger_.lines.push_back({c, f, std::move(what), elements});
    }
    FrameworkLedger take() { return std::move(ledger_); }

private:
    FrameworkLedger ledger_;
};

void add_parameter_side(LedgerBuilder& b, const ModelShape& shape, const PrecisionConfig& p,
                        const OptimizerConfig& o) {
    const I n = shape.parameter_count();
    const FormatId weights = recipe_weight_format(p.recipe);
    const bool pure = weights != FormatId::fp32;
    const bool fp32_steps = !pure || p.master_weights;  // the optimizer steps FP32 values
    const std::string name(format_display_name(weights));
    if (pure) {
        b.add(HeldClass::weights, weights, name + " model weights", n);
        if (p.master_weights) b.add(HeldClass::weights, FormatId::fp32, "FP32 master weights", n);
    } else {
        b.add(HeldClass::weights, FormatId::fp32, "FP32 weights", n);
    }
    // A model cast to 16 bits casts its buffers too (module.half()); autocast leaves them FP32.
    b.add(HeldClass::weights, pure ? weights : FormatId::fp32, "BatchNorm running means and variances",
          shape.buffers);
    const FormatId compute = stored_compute_format(p.recipe);
    if (!pure && compute != FormatId::fp32) {
        const I cast = shape.parameter_count(ParameterUse::matmul_weight) + shape.parameter_count(ParameterUse::matmul_bias);
        b.add(HeldClass::weight_copies, compute,
              "autocast's " + std::string(format_display_name(compute)) + " copies of what the matmuls read", cast);
    }
    if (recipe_uses_fp8(p.recipe))
        b.add(HeldClass::weight_copies, kFp8ForwardFormat, "E4M3 copies of the matmuls' weights",
              shape.parameter_count(ParameterUse::matmul_weight));
    b.add(HeldClass::gradients, weights, name + " gradients", n);
    if (pure && p.master_weights) b.add(HeldClass::gradients, FormatId::fp32, "FP32 gradients of the masters", n);
    b.add(HeldClass::optimizer_state, fp32_steps ? FormatId::fp32 : weights, optimizer_what(o),
          optimizer_tensors(o) * n);
}

void add_activations(LedgerBuilder& b, const ModelShape& shape, const PrecisionConfig& p) {
    const FormatId compute = stored_compute_format(p.recipe);
    for (const SavedActivation& s : shape.saved) {
        const bool fp32 = s.always_fp32 || (s.fp32_op && p.keeps_fp32(*s.fp32_op));
        b.add(HeldClass::activations, fp32 ? FormatId::fp32 : compute, s.what, s.elements);
    }
}

}  // namespace

std::string_view held_class_name(HeldClass c) {
    switch (c) {
        case HeldClass::weights: return "weights";
        case HeldClass::weight_copies: return "16-bit/FP8 copies";
        case HeldClass::gradients: return "gradients";
        case HeldClass::optimizer_state: return "optimizer state";
        case HeldClass::activations: return "activations";
    }
    return "?";
}

std::int64_t FrameworkLedger::bytes(HeldClass c) const {
    return std::accumulate(lines.begin(), lines.end(), I{0},
                           [c](I sum, const HeldLine& l) { return sum + (l.held_class == c ? l.bytes() : 0); });
}

std::int64_t FrameworkLedger::parameter_side_bytes() const { return total_bytes() - bytes(HeldClass::activations); }

std::int64_t FrameworkLedger::total_bytes() const {
    return std::accumulate(lines.begin(), lines.end(), I{0}, [](I sum, const HeldLine& l) { return sum + l.bytes(); });
}

FrameworkLedger framework_ledger(const ModelShape& shape, const PrecisionConfig& precision,
                                 const OptimizerConfig& optimizer) {
    LedgerBuilder b(precision.recipe);
    add_parameter_side(b, shape, precision, optimizer);
    add_activations(b, shape, precision);
    return b.take();
}

}  // namespace plab
