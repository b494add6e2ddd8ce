// fp8-delayed-scaling: E4M3 forward, E5M2 backward. Unscaled, most true
// activation gradients lie below E5M2's range (2^-16 is its smallest
// subnormal) and flush to zero; delayed per-tensor scaling (scales from an
// amax history) moves them into range: the E5M2 cast flushes a small tail
// only, and the run tracks its FP32 twin.
#include <algorithm>
#include <climits>
#include <cmath>
#include <cstdio>

#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"

namespace plab {

namespace {

constexpr double kFlushNeeded = 0.50;      // unscaled: at least half the true gradients lost
constexpr double kFlushCutNeeded = 4.0;    // scaling divides what the cast flushes at least by this
constexpr double kScaledGapAllowed = 0.01; // test accuracy within a point of the twin

std::string fixed_ratio_text(double x) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.1f", x);
    return buffer;
}

}  // namespace

ScenarioReport check_fp8_delayed_scaling(Backend& backend, const ScenarioProgress& progress) {
    const RunConfig config = scenario_config("fp8-delayed-scaling", {"telemetry.hist_every=0"});
    const Fp8ScalingRuns runs = run_fp8_scaling_pair(backend, config, progress, 0, 0.5, 1);
    const RunResult& scaled = runs.scaled;
    const RunResult& unscaled = runs.unscaled;
    const CastFlushMeter& scaled_cast = runs.scaled_cast;
    const CastFlushMeter& unscaled_cast = runs.unscaled_cast;
    const double flushed = runs.true_flushed;
    const double cut = runs.cut();
    const FinalAccuracy unscaled_accuracy = final_accuracy(unscaled.records);
    ScenarioReport report{config.name, {}};
    report.verdicts.push_back(make_verdict(
        flushed >= kFlushNeeded,
        "fp8_scaling=none: " + percent_text(flushed) +
            " of the non-zero true (FP32 twin) activation grads flush to zero in E5M2, over " +
            std::to_string(unscaled.records.size()) + " steps (needs >= " + percent_text(kFlushNeeded, 0) +
            "); test accuracy " + percent_text(unscaled_accuracy.acc) + " vs twin " +
            percent_text(unscaled_accuracy.acc_ref) + ": the large gradients survive"));
    report.verdicts.push_back(make_verdict(
        cut >= kFlushCutNeeded,
        "the E5M2 cast flushes " + percent_text(unscaled_cast.fraction()) +
            " of the non-zero activation grads it sees unscaled, " + percent_text(scaled_cast.fraction(), 2) +
            " with delayed scaling (grad scales " + scaled_cast.scales_text() + ", history " +
            std::to_string(config.precision.fp8.history_len) + " steps, margin " +
            std::to_string(config.precision.fp8.margin) + "): " + fixed_ratio_text(cut) + "x fewer (needs >= " +
            fixed_ratio_text(kFlushCutNeeded) + "x)"));
    report.verdicts.push_back(
        accuracy_near_twin("fp8_scaling=delayed", final_accuracy(scaled.records), kScaledGapAllowed));
    return report;
}

}  // namespace plab
