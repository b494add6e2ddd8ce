#include "ui/present/nan_diagnosis.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <string>
#include <utility>

#include "engine/common/number_text.h"
#include "engine/train/preset_rules.h"
#include "ui/present/loss_curves.h"

namespace plab {

namespace {

bool nonfinite_loss(const StepRecord& r) { return !std::isfinite(r.loss); }

const StepRecord* first_nonfinite_record(const RunLogView& log) {
    for (const auto& r : log.recent)
        if (r->found_inf || nonfinite_loss(*r)) return r.get();
    return nullptr;
}

// A loss the decimated history saw that was not finite: NaN throughout a
// bucket (MinMax passes NaN over) or an Inf.
bool nonfinite_loss(const SeriesPoint& p) { return !std::isfinite(p.loss.min) || !std::isfinite(p.loss.max); }

bool any_nonfinite_loss(const std::vector<SeriesPoint>& series) {
    for (const SeriesPoint& p : series)
        if (nonfinite_loss(p)) return true;
    return false;
}

std::string layer_name(const std::vector<std::string>& names, int index) {
    if (index >= 0 && static_cast<std::size_t>(index) < names.size()) return names[static_cast<std::size_t>(index)];
    return "layer " + std::to_string(index + 1);
}

std::int64_t nonfinite_count(const TensorStats& s) { return s.nans + s.pos_infs + s.neg_infs; }

// "12 Inf and 3 NaN of 4096 values"
std::string count_text(const TensorStats& s) {
    std::string t;
    const std::int64_t infs = s.pos_infs + s.neg_infs;
    if (infs > 0) t += std::to_string(infs) + " Inf";
    if (s.nans > 0) t += (t.empty() ? "" : " and ") + std::to_string(s.nans) + " NaN";
    return t + " of " + std::to_string(s.count) + " values";
}

// The first layer, in forward order, whose activation is not finite: where a forward overflow began.
int first_nonfinite_activation(const StepRecord& r) {
    for (std::size_t i = 0; i < r.layers.size(); ++i)
        if (nonfinite_count(r.layers[i].act) > 0) return static_cast<int>(i);
    return -1;
}

std::string scaler_outcome(const StepRecord& r) {
    if (!r.skipped) return "The update went ahead with those gradients (scaler kind none skips nothing), so the weights may now hold NaN.";
    std::string s = "The step was skipped";
    if (r.backoff) s += " and the scale backed off to " + power_of_two_text(r.scale_after);
    else s += "; the scale stayed at " + power_of_two_text(r.scale_after);
    return s + ".";
}

// In fp16-pure and bf16-pure the parameters and their summed gradients stay
// in the weights' 16-bit format whatever a layer computes in, so an FP32
// override of the layer would not give them FP32's range.
bool fp32_layer_can_help(const PrecisionConfig& p) { return recipe_weight_format(p.recipe) == FormatId::fp32; }

// Whether a remedy may keep `layer` in FP32: only a matmul layer takes a
// layer override; an embedding table shows in the telemetry but computes no
// matmul of its own.
bool can_keep_in_fp32(const RunConfig& config, const std::string& layer) {
    const std::vector<std::string> overridable = model_layer_names(config.model);
    return fp32_layer_can_help(config.precision) &&
           std::find(overridable.begin(), overridable.end(), layer) != overridable.end();
}

void add_backward_remedies(const StepRecord& r, const RunConfig& config, const std::string& layer,
                           NanDiagnosis& d) {
    if (config.scaler.kind != ScalerKind::none) {
        const float lower = r.scale / 16.0f;
        if (lower >= 1.0f) {
            const std::string value = shortest_text(lower);
            d.remedies.push_back({"Lower the loss scale to " + power_of_two_text(lower),
                                  "Sixteen times less headroom used: |g| x scale stays under the format's maximum.",
                                  {"scaler.scale=" + value, "scaler.init_scale=" + value}});
        }
    }
    if (can_keep_in_fp32(config, layer))
        d.remedies.push_back({"Keep " + layer + " in FP32",
                              "Its gradients and activations get FP32's range; the other layers stay as they are.",
                              {"precision.layer_overrides." + layer + "=fp32"}});
}

void add_format_remedy(const RunConfig& config, NanDiagnosis& d) {
    if (config.precision.recipe == Recipe::amp_fp16)
        d.remedies.push_back({"Switch to BF16 (amp-bf16)",
                              "BF16 has FP32's exponent range: nothing this size overflows, and no loss scale is needed.",
                              {"precision.recipe=amp-bf16", "scaler.kind=none"}});
}

void describe(const StepRecord& r, const RunConfig& config, const std::vector<std::string>& names, NanDiagnosis& d) {
    const std::string at = "Step " + std::to_string(r.step) + ": ";
    const std::string scale = power_of_two_text(r.scale);
    if (nonfinite_loss(r)) {
        const int layer = first_nonfinite_activation(r);
        const std::string where = layer >= 0 ? layer_name(names, layer) : "";
        d.headline = at + "the loss is " + loss_text(r.loss, 4) + " (forward)" +
                     (where.empty() ? "" : ": the activation of " + where + " overflowed first");
        if (layer >= 0) {
            const TensorStats& a = r.layers[static_cast<std::size_t>(layer)].act;
            d.detail = "The output of " + where + " held " + count_text(a) + "; its largest finite |x| was " +
                       shortest_text(a.amax) + ". ";
        }
        d.detail += scaler_outcome(r);
        if (!where.empty())
            d.remedies.push_back({"Keep " + where + " in FP32", "Its activations get FP32's range.",
                                  {"precision.layer_overrides." + where + "=fp32"}});
        add_format_remedy(config, d);
        d.remedies.push_back({"Halve the learning rate", "Large updates grow the weights until activations overflow.",
                              {"optimizer.lr=" + shortest_text(config.optimizer.lr / 2)}});
        return;
    }
    const std::string layer = r.first_nonfinite_layer >= 0 ? layer_name(names, r.first_nonfinite_layer) : "";
    d.headline = at + "gradient overflow" + (layer.empty() ? "" : " in " + layer) + " (backward) at loss scale " + scale;
    if (!layer.empty() && static_cast<std::size_t>(r.first_nonfinite_layer) < r.layers.size()) {
        const LayerRecord& l = r.layers[static_cast<std::size_t>(r.first_nonfinite_layer)];
        // The layer's non-finite gradient was its weight's or else its bias's
        // (telemetry keeps statistics of the weight gradient only).
        if (nonfinite_count(l.grad) > 0)
            d.detail = "The weight gradient of " + layer + " held " + count_text(l.grad) + " as scaled by " + scale +
                       " (the first layer in backward order to do so). ";
        else
            d.detail = "The bias gradient of " + layer + " overflowed (the first layer in backward order to do so); "
                       "its weight gradient stayed finite, largest |g| " + shortest_text(l.grad.amax) +
                       " as scaled by " + scale + ". ";
    }
    d.detail += scaler_outcome(r);
    if (r.skipped && config.scaler.kind == ScalerKind::dynamic)
        d.detail += " That is the dynamic scaler working as designed; many such steps mean the scale starts too high.";
    add_backward_remedies(r, config, layer, d);
    add_format_remedy(config, d);
}

// "fc2.weight" -> "fc2": the layer a traced tensor belongs to.
std::string traced_layer(const NanReport& r) { return r.layer.substr(0, r.layer.find('.')); }

bool is_layer_name(const std::vector<std::string>& names, const std::string& name) {
    return std::find(names.begin(), names.end(), name) != names.end();
}

// The policy's FP32 op list with `added` put back, as a live edit.
std::string fp32_ops_with(const PrecisionConfig& p, Fp32Op added) {
    std::string list;
    for (Fp32Op op : p.fp32_ops) list += "\"" + std::string(fp32_op_name(op)) + "\",";
    return "precision.fp32_ops=[" + list + "\"" + std::string(fp32_op_name(added)) + "\"]";
}

// The norm a traced op belongs to (its forward or its gradient), with the
// name a remedy gives it; none for any other op.
std::optional<std::pair<Fp32Op, std::string>> traced_norm(const NanReport& r) {
    if (r.op.starts_with("batch_norm")) return std::pair{Fp32Op::batch_norm, std::string("BatchNorm")};
    if (r.op.starts_with("layer_norm")) return std::pair{Fp32Op::layer_norm, std::string("LayerNorm")};
    return std::nullopt;
}

void apply_trace(const NanReport& r, const RunConfig& config, const std::vector<std::string>& names, NanDiagnosis& d) {
    d.headline = "Step " + std::to_string(r.step) + ": the " + std::string(phase_name(r.phase)) + " " + r.op + " of " +
                 r.layer + " made the first " + (r.infs > 0 ? "Inf" : "NaN") + " (" +
                 std::string(format_name(r.format)) + ")";
    d.traced = "Traced op by op: " + r.diagnosis + ".";
    // The record-based guess of the layer gives way to the traced one.
    const std::string layer = traced_layer(r);
    std::erase_if(d.remedies, [](const Remedy& m) { return m.label.starts_with("Keep "); });
    if (is_layer_name(names, layer) && can_keep_in_fp32(config, layer))
        d.remedies.insert(d.remedies.begin(), {"Keep " + layer + " in FP32",
                                               "The traced op's layer gets FP32's range; the other layers stay as they are.",
                                               {"precision.layer_overrides." + layer + "=fp32"}});
    if (r.op == "softmax" && !config.precision.keeps_fp32(Fp32Op::softmax))
        d.remedies.insert(d.remedies.begin(), {"Run softmax in FP32",
                                               "autocast's default: the scaled logits get FP32's range (3.4e38) before the exp.",
                                               {fp32_ops_with(config.precision, Fp32Op::softmax)}});
    if (const auto norm = traced_norm(r); norm && !config.precision.keeps_fp32(norm->first))
        d.remedies.insert(d.remedies.begin(),
                          {"Run " + norm->second + " in FP32",
                           "autocast's default: its statistics get FP32's range (3.4e38), so the squares and their "
                           "sums stay finite.",
                           {fp32_ops_with(config.precision, norm->first)}});
    const std::optional<Fp32Op> loss_op = traced_loss_op(r);
    if (loss_op && !config.precision.keeps_fp32(*loss_op))
        d.remedies.insert(d.remedies.begin(),
                          {"Run the loss in FP32",
                           "autocast's default: the batch's loss terms are summed in FP32, whose range (3.4e38) "
                           "no batch of them passes.",
                           {fp32_ops_with(config.precision, *loss_op)}});
}

}  // namespace

NanDiagnosis diagnose_first_nonfinite(const RunLogView& log, const RunConfig& config,
                                      const std::vector<std::string>& layer_names, const StepTrace* trace) {
    NanDiagnosis d;
    const StepRecord* first = first_nonfinite_record(log);
    const std::int64_t first_step = log.totals.first_nonfinite_step;
    if (!first && first_step < 0) {
        d.headline = "No overflow or NaN so far.";
        d.detail = "When a gradient overflows or the loss turns NaN, this says where it began (step, phase, layer), "
                   "what the loss scaler did about it, and offers remedies to try on a fork from the step before.";
        return d;
    }
    d.found = true;
    if (!first || (first_step >= 0 && first_step < first->step)) {
        d.step = first_step;
        d.last_finite_step = first_step - 1;
        d.headline = "Step " + std::to_string(first_step) + ": the first overflow or NaN of this run";
        d.detail = "That step has left the recent records, so its tensors are no longer here to examine; "
                   "rewind to step " + std::to_string(first_step - 1) + " to see it again.";
        d.handled = config.scaler.kind != ScalerKind::none && !any_nonfinite_loss(log.series);
        return d;
    }
    d.step = first->step;
    d.last_finite_step = first->step - 1;
    d.handled = first->skipped && !nonfinite_loss(*first);
    describe(*first, config, layer_names, d);
    if (!trace || trace->step != d.step) {
        d.trace_wanted = true;
    } else if (trace->first_nonfinite) {
        apply_trace(*trace->first_nonfinite, config, layer_names, d);
    } else {
        d.traced = "Traced op by op: the replay of step " + std::to_string(d.step) +
                   " found every op's output finite (the Inf or NaN came from outside the traced ops).";
    }
    return d;
}

}  // namespace plab
