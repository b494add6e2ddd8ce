// tf32-drift: TF32 is FP16's mantissa with FP32's range. Its weights drift
// from the FP32 twin as AMP-FP16's do (the mantissa sets the rounding), far
// less than BF16's, and it needs no loss scaler: on the underflow lesson's
// net, where FP16 gradients flush without scaling, TF32 trains to its twin.
#include <string>

#include "engine/common/number_text.h"
#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"

namespace plab {

namespace {

constexpr std::size_t kDriftStep = 10;  // early: before chaos amplifies every difference alike
constexpr double kLikeFp16Within = 1.5;    // TF32's drift over AMP-FP16's, either way
constexpr double kBf16AtLeast = 2.0;       // BF16's drift over TF32's
constexpr double kNearTwin = 0.01;         // test accuracy, TF32 on the underflow net
constexpr double kFp16UnderAtLeast = 0.3;  // test accuracy under the twin, AMP-FP16 on that net

// The largest weight distance from the twin over the layers, at step kDriftStep.
double drift(const RunResult& run) { return weight_distance_at(run.records, kDriftStep); }

Verdict drifts_like_fp16(double tf32, double fp16, double bf16) {
    const double ratio = tf32 / fp16;
    const bool holds = ratio <= kLikeFp16Within && ratio >= 1 / kLikeFp16Within && bf16 >= kBf16AtLeast * tf32;
    return make_verdict(holds, "weight distance from the twin at step " + std::to_string(kDriftStep) + ": TF32 " +
                                   significant_text(tf32, 3) + ", AMP-FP16 " + significant_text(fp16, 3) +
                                   ", AMP-BF16 " + significant_text(bf16, 3) + " (needs TF32 within " +
                                   significant_text(kLikeFp16Within, 2) + "x of AMP-FP16, BF16 >= " +
                                   significant_text(kBf16AtLeast, 2) + "x TF32: the mantissa sets the drift)");
}

}  // namespace

ScenarioReport check_tf32_drift(Backend& backend, const ScenarioProgress& progress) {
    const RunConfig config = scenario_config("tf32-drift");
    ScenarioReport report{config.name, {}};
    const RunResult tf32 = run_in_recipe(backend, config.name, Recipe::tf32, progress, 0, 0.2);
    const RunResult fp16 = run_in_recipe(backend, config.name, Recipe::amp_fp16, progress, 0.2, 0.35);
    const RunResult bf16 = run_in_recipe(backend, config.name, Recipe::amp_bf16, progress, 0.35, 0.5);
    report.verdicts.push_back(drifts_like_fp16(drift(tf32), drift(fp16), drift(bf16)));

    const std::int64_t skipped = count_steps(tf32.records, [](const StepRecord& r) { return r.skipped; });
    report.verdicts.push_back(make_verdict(skipped == 0, "TF32 without a scaler: " + std::to_string(skipped) +
                                                             " of " + std::to_string(tf32.records.size()) +
                                                             " steps skipped (needs none: FP32's range)"));

    const RunConfig underflow = scenario_config("underflow-no-scaling", {"telemetry.hist_every=0"});
    const RunResult tf32_deep = run_to_end(
        backend, scenario_config(underflow.name, {"telemetry.hist_every=0", "precision.recipe=tf32"}),
        run_options(progress, 0.5, 0.75, "underflow-no-scaling in TF32"));
    const RunResult fp16_deep = run_to_end(backend, underflow, run_options(progress, 0.75, 1, "underflow-no-scaling"));
    report.verdicts.push_back(accuracy_near_twin("underflow-no-scaling in TF32, no scaler",
                                                 final_accuracy(tf32_deep.records), kNearTwin));
    report.verdicts.push_back(accuracy_under_twin("underflow-no-scaling in AMP-FP16, no scaler",
                                                  final_accuracy(fp16_deep.records), kFp16UnderAtLeast));
    return report;
}

}  // namespace plab
