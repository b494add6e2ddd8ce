#pragma once
// The fields of a StepRecord in their documented order (docs/telemetry.md),
// walked once for every writer: JSON Lines nests them, CSV flattens them into
// dotted column names, tables could list them. One walk, so the formats can
// never disagree about a field.
//
// A Sink provides:
//   number(key, float)  integer(key, int64)  boolean(key, bool)  missing(key)
// visit_stats and visit_layer also walk a non-const record, for a Sink whose
// number / integer take references and fill them (the record reader).
//   begin(key) / end()               a nested object
//   begin_list(key) / end_list()     a list of objects,
//   begin_item(name) / end_item()    one object of that list, named (a layer)
#include <optional>
#include <string>
#include <vector>

#include "engine/numeric/format.h"
#include "engine/train/step_record.h"

namespace plab {

template <typename Stats, typename Sink>  // Stats: TensorStats, const or not
void visit_stats(Stats& s, Sink& sink) {
    sink.integer("count", s.count);
    sink.integer("zeros", s.zeros);
    sink.integer("nans", s.nans);
    sink.integer("pos_infs", s.pos_infs);
    sink.integer("neg_infs", s.neg_infs);
    sink.number("amax", s.amax);
    sink.number("mean_abs", s.mean_abs);
    sink.number("rms", s.rms);
    for (std::size_t f = 0; f < kRangeFormats.size(); ++f) {
        sink.begin(format_name(kRangeFormats[f]));
        sink.number("underflow", s.ranges[f].underflow);
        sink.number("subnormal", s.ranges[f].subnormal);
        sink.number("overflow", s.ranges[f].overflow);
        sink.end();
    }
}

template <typename Layer, typename Sink>  // Layer: LayerRecord, const or not
void visit_layer(Layer& r, bool twin, Sink& sink) {
    const std::pair<const char*, decltype(&r.weight)> tensors[] = {
        {"weight", &r.weight}, {"grad", &r.grad},         {"grad_unscaled", &r.grad_unscaled},
        {"act", &r.act},       {"act_grad", &r.act_grad}, {"act_grad_unscaled", &r.act_grad_unscaled}};
    for (const auto& [name, stats] : tensors) {
        sink.begin(name);
        visit_stats(*stats, sink);
        sink.end();
    }
    if (!twin) return;
    sink.number("rel_dist", r.weight_rel_dist);
    sink.number("grad_rel_dist", r.grad_rel_dist);
    sink.number("grad_cos", r.grad_cos);
}

template <typename Sink>
void visit_optional(const char* key, const std::optional<float>& v, Sink& sink) {
    if (v)
        sink.number(key, *v);
    else
        sink.missing(key);
}

// `layer_names` name the entries of record.layers; `twin` says whether the
// twin's fields exist in this run.
template <typename Sink>
void visit_step(const StepRecord& r, const std::vector<std::string>& layer_names, bool twin, Sink& sink) {
    sink.integer("step", r.step);
    sink.number("loss", r.loss);
    if (twin) sink.number("loss_ref", r.loss_ref);
    sink.number("scale", r.scale);
    sink.number("scale_after", r.scale_after);
    sink.integer("growth_tracker", r.growth_tracker);
    sink.boolean("found_inf", r.found_inf);
    sink.boolean("skipped", r.skipped);
    sink.boolean("backoff", r.backoff);
    sink.boolean("growth", r.growth);
    if (r.first_nonfinite_layer >= 0)
        sink.integer("first_nonfinite_layer", r.first_nonfinite_layer);
    else
        sink.missing("first_nonfinite_layer");
    sink.number("grad_norm", r.grad_norm);
    sink.boolean("clipped", r.clipped);
    sink.number("lost_update_frac", r.lost_update_frac);
    sink.number("lr", r.lr);
    visit_optional("acc", r.acc, sink);
    if (twin) visit_optional("acc_ref", r.acc_ref, sink);
    visit_optional("test_loss", r.test_loss, sink);
    if (twin) visit_optional("test_loss_ref", r.test_loss_ref, sink);
    if (r.layers.empty()) return;  // telemetry off
    sink.begin_list("layers");
    for (std::size_t i = 0; i < r.layers.size(); ++i) {
        sink.begin_item(layer_names[i]);
        visit_layer(r.layers[i], twin, sink);
        sink.end_item();
    }
    sink.end_list();
}

}  // namespace plab
