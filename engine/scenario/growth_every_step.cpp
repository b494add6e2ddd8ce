// growth-every-step: the loss scaler grown after every clean step
// (growth_interval 1) beside PyTorch's 2000. Once the scale reaches the
// largest that fits, each growth overflows the next step, which is skipped
// and backs off: about every other step is thrown away and the run learns
// more slowly. With 2000 the scale never probes its limit in this run.
#include <string>

#include "engine/common/number_text.h"
#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"

namespace plab {

namespace {

constexpr double kSkippedFrom = 0.4, kSkippedTo = 0.6;  // "about every other step"
constexpr double kLongSkippedAtMost = 0.01;
constexpr std::size_t kLossWindow = 50;                 // steps the final training loss is averaged over
constexpr double kLossAboveAtLeast = 1.2;               // interval 1's final loss over interval 2000's
constexpr const char* kLongInterval = "scaler.growth_interval=2000";

double skipped_share(const RunResult& run) {
    const std::int64_t skipped = count_steps(run.records, [](const StepRecord& r) { return r.skipped; });
    return static_cast<double>(skipped) / static_cast<double>(run.records.size());
}

double final_loss(const RunResult& run) {
    return mean_over_last(run.records, kLossWindow, [](const StepRecord& r) { return r.loss; });
}

Verdict every_other_step_skipped(const RunResult& every) {
    const double share = skipped_share(every);
    return make_verdict(share >= kSkippedFrom && share <= kSkippedTo,
                        "growth_interval 1: " + percent_text(share) + " of " + std::to_string(every.records.size()) +
                            " steps skipped, the scale ending at " +
                            power_of_two_text(every.records.back().scale_after) + " (needs " +
                            percent_text(kSkippedFrom, 0) + " to " + percent_text(kSkippedTo, 0) +
                            ": every growth past the limit costs the next step)");
}

Verdict long_interval_keeps_its_steps(const RunResult& long_run) {
    const double share = skipped_share(long_run);
    return make_verdict(share <= kLongSkippedAtMost, "growth_interval 2000: " + percent_text(share) +
                                                         " of the steps skipped (needs <= " +
                                                         percent_text(kLongSkippedAtMost, 0) + ")");
}

Verdict learns_more_slowly(const RunResult& every, const RunResult& long_run) {
    const double a = final_loss(every), b = final_loss(long_run);
    return make_verdict(a >= kLossAboveAtLeast * b,
                        "training loss over the last " + std::to_string(kLossWindow) + " steps: " +
                            significant_text(a, 4) + " with growth_interval 1 vs " + significant_text(b, 4) +
                            " with 2000, " + significant_text(a / b, 3) + "x (needs >= " +
                            significant_text(kLossAboveAtLeast, 2) + "x: half the updates were thrown away)");
}

}  // namespace

ScenarioReport check_growth_every_step(Backend& backend, const ScenarioProgress& progress) {
    const RunConfig config = scenario_config("growth-every-step", {"telemetry.hist_every=0"});
    ScenarioReport report{config.name, {}};
    const RunResult every = run_to_end(backend, config, run_options(progress, 0, 0.5, "growth_interval 1"));
    const RunConfig long_config = scenario_config(config.name, {"telemetry.hist_every=0", kLongInterval});
    const RunResult long_run = run_to_end(backend, long_config, run_options(progress, 0.5, 1, kLongInterval));
    report.verdicts.push_back(every_other_step_skipped(every));
    report.verdicts.push_back(long_interval_keeps_its_steps(long_run));
    report.verdicts.push_back(learns_more_slowly(every, long_run));
    return report;
}

}  // namespace plab
