#pragma once
// What the scenario checks share: a preset run to its end (or to its first
// NaN) with --set edits applied, and the small measurements they make on the
// records. A check composes these; no check trains or measures on its own.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/scenario/scenario.h"
#include "engine/train/run_config.h"
#include "engine/train/trainer.h"

namespace plab {

// A library preset with --set style assignments applied in order, validated
// ("scaler.kind=dynamic", "precision.master_weights=true").
RunConfig scenario_config(std::string_view preset, const std::vector<std::string>& settings = {});

// The --set assignment that puts every op back on autocast's default FP32
// list: the softmax, the norms and the losses.
inline constexpr const char* kAutocastFp32OpsSetting =
    R"(precision.fp32_ops=["layer_norm","batch_norm","softmax_cross_entropy","mse","softmax"])";

// The part of a check's progress (0..1) that one run covers, and its label.
struct ProgressSlice {
    const ScenarioProgress* progress = nullptr;  // null or empty: no reports
    double begin = 0, end = 1;
    std::string what;
    void report(double run_fraction) const;
};

struct RunToEndOptions {
    TrainerOptions trainer;    // trace_nan for the NaN scenarios
    bool stop_at_nan = false;  // end the run at the tracer's first report
    bool keep_layers = true;   // false: records drop their per-layer statistics (memory)
    // Called after every step, before the record is kept: measures what the
    // records do not hold (the twin's tensors, for one).
    std::function<void(const Trainer&, const StepRecord&)> after_step;
    ProgressSlice progress;
};

struct RunResult {
    RunConfig config;
    std::vector<StepRecord> records;  // one per step taken
    std::optional<NanReport> nan;     // the tracer's first report (trace mode)
};

// A run covering [begin, end) of the check's progress, labelled `what`,
// keeping no per-layer statistics; set the other options on the result.
RunToEndOptions run_options(const ScenarioProgress& progress, double begin, double end, std::string what);

RunResult run_to_end(Backend& backend, const RunConfig& config, const RunToEndOptions& options);

// The same with the NaN tracer on (every op's output checked), stopping at
// its first report: RunResult::nan names the op that made the first NaN/Inf.
RunResult run_traced(Backend& backend, const RunConfig& config, const ScenarioProgress& progress, double begin,
                     double end, std::string what);

// The preset in `recipe` with the scaler that recipe runs with by default,
// no histograms, over [begin, end) of the check's progress, keeping every
// step's layers (for weight_distance_at).
RunResult run_in_recipe(Backend& backend, std::string_view preset, Recipe recipe, const ScenarioProgress& progress,
                        double begin, double end);

// --- measurements on records ---

// The test accuracy of the run and of its twin at the last step (always evaluated).
struct FinalAccuracy {
    float acc = 0, acc_ref = 0;
    float gap() const { return acc_ref - acc; }  // how far the run ends under its twin
};
FinalAccuracy final_accuracy(const std::vector<StepRecord>& records);

// The test loss of the run and of its twin at the last step (always
// evaluated); a language model's accuracy says less than its loss.
struct FinalTestLoss {
    float loss = 0, loss_ref = 0;
    float gap() const { return loss - loss_ref; }  // how far the run ends above its twin
};
FinalTestLoss final_test_loss(const std::vector<StepRecord>& records);

// The largest relative distance of a layer's weights from the FP32 twin's
// after step `step` (1-based). Early, before chaos amplifies every difference
// alike, it measures the rounding itself. NaN when the records kept no
// layers, so that no verdict built on it can hold.
double weight_distance_at(const std::vector<StepRecord>& records, std::size_t step);

// Mean of value(record) over the last n records (all of them when fewer).
double mean_over_last(const std::vector<StepRecord>& records, std::size_t n,
                      const std::function<double(const StepRecord&)>& value);
// Mean of value(record) over the last `share` (0..1] of the records, at least one.
double mean_over_late(const std::vector<StepRecord>& records, double share,
                      const std::function<double(const StepRecord&)>& value);
std::int64_t count_steps(const std::vector<StepRecord>& records, const std::function<bool(const StepRecord&)>& pred);

// Of the non-zero finite values a TensorStats describes, how many would round
// to zero in `format` (one of kRangeFormats). Counts, so that they can be
// pooled over layers and steps before dividing.
struct FlushCounts {
    double flushed = 0, nonzero = 0;
    double fraction() const { return nonzero > 0 ? flushed / nonzero : 0.0; }
    FlushCounts& operator+=(const FlushCounts& o) {
        flushed += o.flushed;
        nonzero += o.nonzero;
        return *this;
    }
};
FlushCounts flush_counts(const TensorStats& stats, FormatId format);

// The kinds of tensor telemetry measures per Linear layer.
enum class TensorKind { weight, weight_grad, activation, activation_grad };
std::string_view tensor_kind_label(TensorKind kind);  // "weights", "weight grads", ...
inline constexpr TensorKind kTensorKinds[] = {TensorKind::weight, TensorKind::weight_grad, TensorKind::activation,
                                              TensorKind::activation_grad};
// Statistics of layer `layer`'s tensor of `kind` in the FP32 twin, as the
// last step left it: the true values the mixed run approximates. Activations
// and their gradients are the training batch's only on steps that did not
// evaluate (evaluation runs the test set through the model).
TensorStats twin_tensor_stats(Backend& backend, const Trainer& trainer, int layer, TensorKind kind);

// Pools, per layer, the flush counts of one kind of the twin's tensors over
// the steps it measures (as RunToEndOptions::after_step). Activations and
// their gradients are measured on training steps only (see twin_tensor_stats).
class TwinFlushMeter {
public:
    TwinFlushMeter(Backend& backend, TensorKind kind, FormatId format) : backend_(backend), kind_(kind), format_(format) {}
    void measure(const Trainer& trainer, const StepRecord& record);
    const std::vector<FlushCounts>& per_layer() const { return layers_; }
    FlushCounts total() const;
    // The layer with the largest pooled fraction (0 when none was measured).
    int worst_layer() const;

private:
    Backend& backend_;
    TensorKind kind_;
    FormatId format_;
    std::vector<FlushCounts> layers_;
};

// Pools the FP8 layers' activation gradients as the E5M2 cast saw them
// (times their scale) over the steps it is shown (as RunToEndOptions::
// after_step), and the range of the scales' exponents.
class CastFlushMeter {
public:
    void measure(const StepRecord& record);
    double fraction() const { return counts_.fraction(); }
    std::string scales_text() const;  // "2^-3 .. 2^9"

private:
    FlushCounts counts_;
    int min_exponent_ = std::numeric_limits<int>::max(), max_exponent_ = std::numeric_limits<int>::min();
};

// An FP8 preset run twice: as configured (delayed scaling, its records kept
// with their layers) over [begin, mid) of the check's progress, and with
// precision.fp8_scaling=none over [mid, end), with what the E5M2 cast saw in
// each and how many of the twin's true activation gradients E5M2 flushes.
struct Fp8ScalingRuns {
    RunResult scaled, unscaled;
    CastFlushMeter scaled_cast, unscaled_cast;
    double true_flushed = 0;  // of the twin's non-zero activation grads, in the unscaled run
    // How many times fewer activation grads the cast flushes with scaling.
    double cut() const { return unscaled_cast.fraction() / std::max(scaled_cast.fraction(), 1e-9); }
};
Fp8ScalingRuns run_fp8_scaling_pair(Backend& backend, const RunConfig& config, const ScenarioProgress& progress,
                                    double begin, double mid, double end);

// --- verdict text ---
std::string percent_text(double fraction, int decimals = 1);  // 0.4123 -> "41.2%"
std::string points_text(double fraction, int decimals = 1);   // 0.0531 -> "5.3 points"
Verdict make_verdict(bool holds, std::string text);
// "LABEL: test accuracy 61.2% vs FP32 twin 93.5%, 32.3 points under it (needs >= 5.0)".
Verdict accuracy_under_twin(std::string_view label, const FinalAccuracy& a, double at_least);
// "LABEL: test loss 2.491 vs FP32 twin 2.491, 0.0002 apart (needs <= 0.05)"; a NaN loss never holds.
Verdict test_loss_near_twin(std::string_view label, const FinalTestLoss& l, double at_most);
// "LABEL: test loss 3.198 vs FP32 twin 2.721, 0.477 above it (needs >= 0.2)".
Verdict test_loss_above_twin(std::string_view label, const FinalTestLoss& l, double at_least);
// "LABEL: test accuracy 93.2% vs FP32 twin 93.5%, 0.3 points apart (needs <= 0.5)".
Verdict accuracy_near_twin(std::string_view label, const FinalAccuracy& a, double at_most);

}  // namespace plab
