#include "engine/scenario/run_to_end.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "engine/common/error.h"
#include "engine/common/number_text.h"
#include "engine/train/preset_io.h"

namespace plab {

RunConfig scenario_config(std::string_view preset, const std::vector<std::string>& settings) {
    RunConfig config = load_preset(preset);
    apply_settings(config, settings);
    return config;
}

void ProgressSlice::report(double run_fraction) const {
    if (progress == nullptr || !*progress) return;
    (*progress)(begin + (end - begin) * std::clamp(run_fraction, 0.0, 1.0), what);
}

RunToEndOptions run_options(const ScenarioProgress& progress, double begin, double end, std::string what) {
    RunToEndOptions options;
    options.keep_layers = false;
    options.progress = {&progress, begin, end, std::move(what)};
    return options;
}

RunResult run_traced(Backend& backend, const RunConfig& config, const ScenarioProgress& progress, double begin,
                     double end, std::string what) {
    RunToEndOptions tracing = run_options(progress, begin, end, std::move(what));
    tracing.trainer.trace_nan = true;
    tracing.stop_at_nan = true;
    return run_to_end(backend, config, tracing);
}

RunResult run_to_end(Backend& backend, const RunConfig& config, const RunToEndOptions& options) {
    Trainer trainer(backend, config, options.trainer);
    RunResult result{config, {}, std::nullopt};
    result.records.reserve(static_cast<std::size_t>(config.steps));
    // About a hundred reports a run: enough for a smooth line, few enough to cost nothing.
    const int report_every = std::max(1, config.steps / 100);
    options.progress.report(0.0);
    for (int i = 0; i < config.steps; ++i) {
        StepRecord record = trainer.step();
        if (options.after_step) options.after_step(trainer, record);
        if (!options.keep_layers) record.layers = {};
        record.histograms.reset();
        record.twin_view.reset();
        record.boundary.reset();
        result.records.push_back(std::move(record));
        if ((i + 1) % report_every == 0) options.progress.report(static_cast<double>(i + 1) / config.steps);
        if (options.stop_at_nan && trainer.nan_report()) break;
    }
    result.nan = trainer.nan_report();
    options.progress.report(1.0);
    return result;
}

RunResult run_in_recipe(Backend& backend, std::string_view preset, Recipe recipe, const ScenarioProgress& progress,
                        double begin, double end) {
    RunToEndOptions options = run_options(progress, begin, end, std::string(recipe_name(recipe)));
    options.keep_layers = true;
    const std::string scaler(scaler_kind_name(recipe_default_scaler(recipe)));
    return run_to_end(backend,
                      scenario_config(preset, {"telemetry.hist_every=0",
                                               "precision.recipe=" + std::string(recipe_name(recipe)),
                                               "scaler.kind=" + scaler}),
                      options);
}

double weight_distance_at(const std::vector<StepRecord>& records, std::size_t step) {
    const StepRecord& r = records.at(step - 1);
    if (r.layers.empty()) return std::nan("");
    double d = 0;
    for (const LayerRecord& l : r.layers) d = std::max(d, static_cast<double>(l.weight_rel_dist));
    return d;
}

FinalAccuracy final_accuracy(const std::vector<StepRecord>& records) {
    if (records.empty() || !records.back().acc) throw Error("scenario: the run's last step holds no test accuracy");
    return {*records.back().acc, records.back().acc_ref.value_or(0.0f)};
}

void CastFlushMeter::measure(const StepRecord& record) {
    for (const LayerRecord& layer : record.layers) {
        if (!layer.fp8) continue;
        counts_ += flush_counts(layer.fp8->grad_scaled, kFp8GradFormat);
        if (record.step == 1) continue;  // no history yet: every scale is 1
        const int e = std::ilogb(layer.fp8->scales.grad);
        min_exponent_ = std::min(min_exponent_, e);
        max_exponent_ = std::max(max_exponent_, e);
    }
}

std::string CastFlushMeter::scales_text() const {
    return "2^" + std::to_string(min_exponent_) + " .. 2^" + std::to_string(max_exponent_);
}

Fp8ScalingRuns run_fp8_scaling_pair(Backend& backend, const RunConfig& config, const ScenarioProgress& progress,
                                    double begin, double mid, double end) {
    Fp8ScalingRuns runs;
    RunToEndOptions scaled = run_options(progress, begin, mid, "FP8, delayed scaling");
    scaled.keep_layers = true;
    scaled.after_step = [&runs](const Trainer&, const StepRecord& r) { runs.scaled_cast.measure(r); };
    runs.scaled = run_to_end(backend, config, scaled);

    TwinFlushMeter true_grads(backend, TensorKind::activation_grad, kFp8GradFormat);
    RunToEndOptions unscaled = run_options(progress, mid, end, "FP8, precision.fp8_scaling=none");
    unscaled.after_step = [&](const Trainer& t, const StepRecord& r) {
        true_grads.measure(t, r);
        runs.unscaled_cast.measure(r);
    };
    runs.unscaled = run_to_end(
        backend, scenario_config(config.name, {"telemetry.hist_every=0", "precision.fp8_scaling=none"}), unscaled);
    runs.true_flushed = true_grads.total().fraction();
    return runs;
}

FinalTestLoss final_test_loss(const std::vector<StepRecord>& records) {
    if (records.empty() || !records.back().test_loss) throw Error("scenario: the run's last step holds no test loss");
    return {*records.back().test_loss, records.back().test_loss_ref.value_or(0.0f)};
}

double mean_over_last(const std::vector<StepRecord>& records, std::size_t n,
                      const std::function<double(const StepRecord&)>& value) {
    const std::size_t first = records.size() - std::min(n, records.size());
    double sum = 0;
    for (std::size_t i = first; i < records.size(); ++i) sum += value(records[i]);
    return records.size() > first ? sum / static_cast<double>(records.size() - first) : 0.0;
}

double mean_over_late(const std::vector<StepRecord>& records, double share,
                      const std::function<double(const StepRecord&)>& value) {
    const auto late = static_cast<std::size_t>(share * static_cast<double>(records.size()));
    return mean_over_last(records, std::max<std::size_t>(late, 1), value);
}

std::int64_t count_steps(const std::vector<StepRecord>& records, const std::function<bool(const StepRecord&)>& pred) {
    return std::count_if(records.begin(), records.end(), pred);
}

FlushCounts flush_counts(const TensorStats& stats, FormatId format) {
    const auto slot = std::find(kRangeFormats.begin(), kRangeFormats.end(), format);
    if (slot == kRangeFormats.end()) throw Error("flush_counts: telemetry does not measure this format");
    const std::int64_t nonzero = stats.count - stats.zeros - stats.nans - stats.pos_infs - stats.neg_infs;
    // The stats hold a fraction of all values; the scenarios speak of the non-zero ones.
    const float underflow = stats.ranges[static_cast<std::size_t>(slot - kRangeFormats.begin())].underflow;
    return {static_cast<double>(underflow) * static_cast<double>(stats.count), static_cast<double>(nonzero)};
}

std::string_view tensor_kind_label(TensorKind kind) {
    switch (kind) {
        case TensorKind::weight: return "weights";
        case TensorKind::weight_grad: return "weight grads";
        case TensorKind::activation: return "activations";
        case TensorKind::activation_grad: return "activation grads";
    }
    return "?";
}

TensorStats twin_tensor_stats(Backend& backend, const Trainer& trainer, int layer, TensorKind kind) {
    const Model* twin = trainer.twin_network();
    if (twin == nullptr) throw Error("scenario: the run has no FP32 twin to measure (twin=true)");
    const Parameter& weight = twin->layer_weight(layer);
    switch (kind) {
        case TensorKind::weight: return backend.tensor_stats(weight.value, 1.0);
        case TensorKind::weight_grad: return backend.tensor_stats(weight.master_grad, 1.0);
        case TensorKind::activation: return backend.tensor_stats(twin->activation(layer), 1.0);
        case TensorKind::activation_grad: return backend.tensor_stats(twin->activation_grad(layer), 1.0);
    }
    return {};
}

void TwinFlushMeter::measure(const Trainer& trainer, const StepRecord& record) {
    const bool pass_tensor = kind_ == TensorKind::activation || kind_ == TensorKind::activation_grad;
    if (pass_tensor && (record.test_loss || record.acc)) return;  // evaluation overwrote the pass
    const int layers = static_cast<int>(trainer.layer_names().size());
    layers_.resize(static_cast<std::size_t>(layers));
    for (int i = 0; i < layers; ++i)
        layers_[static_cast<std::size_t>(i)] += flush_counts(twin_tensor_stats(backend_, trainer, i, kind_), format_);
}

FlushCounts TwinFlushMeter::total() const {
    FlushCounts sum;
    for (const FlushCounts& c : layers_) sum += c;
    return sum;
}

int TwinFlushMeter::worst_layer() const {
    int worst = 0;
    for (std::size_t i = 1; i < layers_.size(); ++i)
        if (layers_[i].fraction() > layers_[static_cast<std::size_t>(worst)].fraction()) worst = static_cast<int>(i);
    return worst;
}

namespace {
std::string fixed_text(double x, int decimals) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, x);
    return buffer;
}
}  // namespace

std::string percent_text(double fraction, int decimals) { return fixed_text(100.0 * fraction, decimals) + "%"; }
std::string points_text(double fraction, int decimals) { return fixed_text(100.0 * fraction, decimals) + " points"; }

Verdict make_verdict(bool holds, std::string text) { return {std::move(text), holds}; }

namespace {
std::string accuracy_text(std::string_view label, const FinalAccuracy& a) {
    return std::string(label) + ": test accuracy " + percent_text(a.acc) + " vs FP32 twin " + percent_text(a.acc_ref);
}
}  // namespace

Verdict accuracy_under_twin(std::string_view label, const FinalAccuracy& a, double at_least) {
    return make_verdict(a.gap() >= at_least, accuracy_text(label, a) + ", " + points_text(a.gap()) +
                                                 " under it (needs >= " + points_text(at_least) + ")");
}

Verdict accuracy_near_twin(std::string_view label, const FinalAccuracy& a, double at_most) {
    const double apart = std::fabs(static_cast<double>(a.gap()));
    return make_verdict(apart <= at_most, accuracy_text(label, a) + ", " + points_text(apart) + " apart (needs <= " +
                                              points_text(at_most) + ")");
}

namespace {
std::string test_loss_text(std::string_view label, const FinalTestLoss& l) {
    return std::string(label) + ": test loss " + significant_text(l.loss, 4) + " vs FP32 twin " +
           significant_text(l.loss_ref, 4);
}
}  // namespace

Verdict test_loss_near_twin(std::string_view label, const FinalTestLoss& l, double at_most) {
    const double apart = std::fabs(static_cast<double>(l.gap()));
    return make_verdict(apart <= at_most, test_loss_text(label, l) + ", " + significant_text(apart, 2) +
                                              " apart (needs <= " + significant_text(at_most, 2) + ")");
}

Verdict test_loss_above_twin(std::string_view label, const FinalTestLoss& l, double at_least) {
    const double above = l.gap();
    return make_verdict(above >= at_least, test_loss_text(label, l) + ", " + significant_text(above, 3) +
                                               " above it (needs >= " + significant_text(at_least, 2) + ")");
}

}  // namespace plab
