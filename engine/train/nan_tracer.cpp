#include "engine/train/nan_tracer.h"

#include <cmath>

#include "engine/common/number_text.h"
#include "engine/numeric/range_table.h"

namespace plab {

std::optional<Fp32Op> traced_loss_op(const NanReport& r) {
    if (r.phase != Phase::loss) return std::nullopt;
    if (r.op == "cross_entropy") return Fp32Op::softmax_cross_entropy;
    if (r.op == "mse") return Fp32Op::mse;
    return std::nullopt;
}

void NanTracer::after_op(const OpEvent& e) { check(e.phase, e.layer, e.op, e.output, e.input, e.loss_scale); }

void NanTracer::check(Phase phase, std::string_view layer, std::string_view op, const Tensor& output,
                      const Tensor* input, float loss_scale) {
    if (first_) return;  // only the first non-finite value matters: the rest follow from it
    if (backend_.count_non_finite(output) == 0) return;
    NanReport r;
    r.step = step_;
    r.phase = phase;
    r.layer = layer;
    r.op = op;
    r.format = output.dtype();
    const TensorStats stats = backend_.tensor_stats(output, 1.0);
    r.nans = stats.nans;
    r.infs = stats.pos_infs + stats.neg_infs;
    r.input_amax = input ? backend_.finite_amax(*input) : 0.0f;
    r.loss_scale = loss_scale;
    r.diagnosis = diagnose(r);
    first_ = std::move(r);
}


namespace {

std::string where(const NanReport& r) {
    return std::string(phase_name(r.phase)) + " " + r.op + " of " + r.layer;
}

std::string what(const NanReport& r) {
    std::string s;
    if (r.infs) s += std::to_string(r.infs) + " Inf";
    if (r.nans) s += std::string(s.empty() ? "" : " and ") + std::to_string(r.nans) + " NaN";
    return s;
}

std::string max_text(FormatId f) { return significant_text(format_range(f).max, 6); }

}  // namespace

std::string diagnose(const NanReport& r) {
    const std::string head = where(r) + " at step " + std::to_string(r.step) + ": " + what(r) + " in " +
                             std::string(format_name(r.format)) + "; ";
    const std::string scale = power_of_two_text(r.loss_scale);
    const std::string amax = significant_text(r.input_amax, 3);
    if (const std::optional<Fp32Op> loss_op = traced_loss_op(r); loss_op && r.infs)
        return where(r) + " at step " + std::to_string(r.step) + ": the loss is Inf: off the FP32 list its " +
               "reduction runs in the logits' format, and the batch's terms (input amax " + amax +
               ") summed past that format's largest value, though each term fits; put " +
               std::string(fp32_op_name(*loss_op)) +
               " back on the FP32 list (precision.fp32_ops), as autocast keeps it";
    if (r.phase == Phase::backward && r.infs && r.loss_scale > 1.0f)
        return head + "backward overflow: gradients times the loss scale passed " + max_text(r.format) +
               " (input amax " + amax + ", scale was " + scale +
               "); a dynamic scaler skips this step and backs off, a static or too high scale keeps overflowing";
    if (r.infs && r.phase != Phase::update)
        return head + "overflow: results passed the largest finite " + std::string(format_name(r.format)) +
               " value " + max_text(r.format) + " (input amax " + amax +
               "); keep this layer in FP32 (precision.layer_overrides), use BF16, or lower the learning rate";
    if (r.phase == Phase::update)
        return head + "a non-finite gradient was applied to the weights (no scaler to skip the step); "
                      "use a loss scaler or a lower learning rate";
    // Every op before this one was finite (the tracer stops at the first), so
    // the overflow happened inside this op: an intermediate such as a scaled
    // logit passed the format's range, then Inf - Inf or 0 * Inf made NaN.
    return head + "NaN from finite inputs (input amax " + amax + "): an intermediate inside the op passed the " +
           "largest finite " + std::string(format_name(r.format)) + " value " + max_text(r.format) +
           ", then Inf - Inf or 0 * Inf gave NaN; compute this op in FP32 (precision.fp32_ops) or use BF16";
}

}  // namespace plab
