// bf16-precision-cost: BF16 buys FP32's exponent range with its mantissa, 8
// significant bits to FP16's 11, and a regression, whose loss keeps asking
// for small corrections, pays for it twice. Stored in BF16 without master
// weights, every update below half a BF16 ULP (eight times FP16's) is lost:
// BF16 weights take far fewer updates than FP16 weights and the run stalls
// above its twin. Under autocast, where FP32 masters keep every update,
// BF16's rounding of the matmul inputs moves the run several times further
// from its FP32 twin than FP16's does.
#include <string>

#include "engine/common/number_text.h"
#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"

namespace plab {

namespace {

constexpr double kLateShare = 0.25;         // "late steps": the last quarter
constexpr double kKeptRatioAtLeast = 3.0;   // updates fp16-pure applies late, over bf16-pure's
constexpr double kStalledAtLeast = 2.0;     // bf16-pure's final test loss over its twin's
constexpr double kTrainsWithin = 1.25;      // fp16-pure's final test loss over its twin's
constexpr std::size_t kDriftStep = 10;      // early: before chaos amplifies every difference alike
constexpr double kDriftRatioAtLeast = 4.0;  // half the 8x that three fewer mantissa bits give

// Of the non-zero updates over the late steps, the share that was lost.
double late_lost(const RunResult& run) {
    return mean_over_late(run.records, kLateShare,
                          [](const StepRecord& r) { return static_cast<double>(r.lost_update_frac); });
}

// Both lose most updates late in the run; what differs is how many are
// applied, so the verdict compares the kept shares.
Verdict loses_more_updates(const RunResult& bf16, const RunResult& fp16) {
    const double b = late_lost(bf16), f = late_lost(fp16);
    const double kept_ratio = (1 - f) / (1 - b);
    return make_verdict(b > f && kept_ratio >= kKeptRatioAtLeast,
                        "no master weights, last " + percent_text(kLateShare, 0) +
                            " of the steps: bf16-pure lost " + percent_text(b) + " of the non-zero updates, " +
                            "fp16-pure " + percent_text(f) + ": FP16 weights took " + significant_text(kept_ratio, 3) +
                            "x as many (needs >= " + significant_text(kKeptRatioAtLeast, 2) + "x)");
}

double twin_ratio(const RunResult& run) {
    const FinalTestLoss l = final_test_loss(run.records);
    return static_cast<double>(l.loss) / static_cast<double>(l.loss_ref);
}

Verdict bf16_stalls(const RunResult& bf16, const RunResult& fp16) {
    const double b = twin_ratio(bf16), f = twin_ratio(fp16);
    const FinalTestLoss l = final_test_loss(bf16.records);
    return make_verdict(b >= kStalledAtLeast && f <= kTrainsWithin,
                        "no master weights: bf16-pure ends at test loss " + significant_text(l.loss, 3) + ", " +
                            significant_text(b, 3) + "x its FP32 twin's " + significant_text(l.loss_ref, 3) +
                            " (needs >= " + significant_text(kStalledAtLeast, 2) + "x); fp16-pure at " +
                            significant_text(f, 3) + "x (needs <= " + significant_text(kTrainsWithin, 3) + "x)");
}

Verdict drifts_further(const RunResult& bf16, const RunResult& fp16) {
    const double b = weight_distance_at(bf16.records, kDriftStep), f = weight_distance_at(fp16.records, kDriftStep);
    return make_verdict(b >= kDriftRatioAtLeast * f,
                        "autocast, weight distance from the FP32 twin at step " + std::to_string(kDriftStep) +
                            ": AMP-BF16 " + significant_text(b, 3) + ", AMP-FP16 " + significant_text(f, 3) + " (" +
                            significant_text(b / f, 3) + "x; needs >= " + significant_text(kDriftRatioAtLeast, 2) +
                            "x); final test loss over the twin's: AMP-BF16 " + significant_text(twin_ratio(bf16), 3) +
                            "x, AMP-FP16 " + significant_text(twin_ratio(fp16), 3) + "x");
}

}  // namespace

ScenarioReport check_bf16_precision_cost(Backend& backend, const ScenarioProgress& progress) {
    const RunConfig config = scenario_config("bf16-precision-cost");
    const RunResult bf16 = run_in_recipe(backend, config.name, Recipe::bf16_pure, progress, 0, 0.3);
    const RunResult fp16 = run_in_recipe(backend, config.name, Recipe::fp16_pure, progress, 0.3, 0.6);
    const RunResult amp_bf16 = run_in_recipe(backend, config.name, Recipe::amp_bf16, progress, 0.6, 0.8);
    const RunResult amp_fp16 = run_in_recipe(backend, config.name, Recipe::amp_fp16, progress, 0.8, 1);
    return {config.name,
            {loses_more_updates(bf16, fp16), bf16_stalls(bf16, fp16), drifts_further(amp_bf16, amp_fp16)}};
}

}  // namespace plab
