// batch-norm-fp16: an MLP whose hidden features reach the hundreds, with
// BatchNorm off the FP32 list. Each feature's statistics are sums over the
// batch's rows, taken in FP16: its squares (and for a large mean, its sum)
// pass 65504, the variance is Inf - Inf = NaN, and the NaN features make the
// loss NaN on every step, which the scaler can only skip. On the FP32 list
// the run follows its twin.
#include <cmath>
#include <string>

#include "engine/common/number_text.h"
#include "engine/numeric/range_table.h"
#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"

namespace plab {

namespace {

constexpr double kSkippedNeeded = 0.9;  // of the FP16-statistics run's steps
constexpr double kUnderTwin = 0.3;      // accuracy below the twin's, statistics in FP16
constexpr double kNearTwin = 0.01;      // accuracy apart from the twin's, on the FP32 list

// The first non-finite value must be born in a BatchNorm's forward, from
// inputs whose squares pass FP16's largest finite value.
Verdict traced_verdict(const RunResult& traced) {
    if (!traced.nan)
        return make_verdict(false, "statistics in FP16, traced: no NaN/Inf in " + std::to_string(traced.records.size()) +
                                       " steps (needs the forward batch_norm of a BatchNorm)");
    const NanReport& r = *traced.nan;
    const double square = static_cast<double>(r.input_amax) * r.input_amax;
    const double fp16_max = format_range(FormatId::fp16).max;
    const bool holds = r.phase == Phase::forward && r.op == "batch_norm" && r.layer.starts_with("bn") &&
                       r.nans > 0 && square > fp16_max;
    return make_verdict(holds, "statistics in FP16, traced: first non-finite at step " + std::to_string(r.step) +
                                   ", " + std::string(phase_name(r.phase)) + " " + r.op + " of " + r.layer + ", " +
                                   std::to_string(r.nans) + " NaN: input amax " + significant_text(r.input_amax, 4) +
                                   ", squared " + significant_text(square, 4) + " > " +
                                   significant_text(fp16_max, 6) + " (needs the forward batch_norm of a BatchNorm)");
}

Verdict every_step_skipped(const RunResult& fp16) {
    const std::int64_t skipped = count_steps(fp16.records, [](const StepRecord& r) { return r.skipped; });
    const double share = static_cast<double>(skipped) / static_cast<double>(fp16.records.size());
    return make_verdict(share >= kSkippedNeeded,
                        "statistics in FP16: " + std::to_string(skipped) + " of " +
                            std::to_string(fp16.records.size()) +
                            " steps skipped for a non-finite gradient, loss scale ended at " +
                            power_of_two_text(fp16.records.back().scale) +
                            ": no loss scale helps a forward overflow (needs >= " +
                            percent_text(kSkippedNeeded, 0) + " skipped)");
}

}  // namespace

ScenarioReport check_batch_norm_fp16(Backend& backend, const ScenarioProgress& progress) {
    const RunConfig config = scenario_config("batch-norm-fp16", {"telemetry.hist_every=0"});
    ScenarioReport report{config.name, {}};

    report.verdicts.push_back(
        traced_verdict(run_traced(backend, config, progress, 0, 0.1, "BatchNorm statistics in FP16, --trace-nan")));

    const RunResult fp16 = run_to_end(backend, config, run_options(progress, 0.1, 0.55, "BatchNorm statistics in FP16"));
    report.verdicts.push_back(every_step_skipped(fp16));
    report.verdicts.push_back(
        accuracy_under_twin("BatchNorm statistics in FP16", final_accuracy(fp16.records), kUnderTwin));

    const RunResult fp32 =
        run_to_end(backend, scenario_config(config.name, {"telemetry.hist_every=0", kAutocastFp32OpsSetting}),
                   run_options(progress, 0.55, 1, "BatchNorm on the FP32 list"));
    report.verdicts.push_back(
        accuracy_near_twin("BatchNorm on the FP32 list", final_accuracy(fp32.records), kNearTwin));
    return report;
}

}  // namespace plab
