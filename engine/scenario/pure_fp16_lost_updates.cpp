// pure-fp16-lost-updates: weights stored in FP16 without FP32 master weights.
// Once lr * update is below half an ULP of the weight, w + lr * u == w: the
// update is lost, and the loss lags far behind its twin's; FP32 master
// weights keep every update.
#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"

#include "engine/common/number_text.h"

namespace plab {

namespace {
constexpr double kLostNeeded = 0.5;
constexpr double kStallRatio = 1.5;     // the run's late loss at least this many times its twin's
constexpr double kMasterRatio = 1.1;    // with master weights at most this many times
constexpr double kLateShare = 0.25;     // "late steps": the last quarter

double late_mean(const RunResult& run, double (*value)(const StepRecord&)) {
    const auto late = static_cast<std::size_t>(kLateShare * static_cast<double>(run.records.size()));
    return mean_over_last(run.records, std::max<std::size_t>(late, 1), value);
}
double lost(const StepRecord& r) { return r.lost_update_frac; }
double loss(const StepRecord& r) { return r.loss; }
double loss_ref(const StepRecord& r) { return r.loss_ref; }

// "training loss 0.912 vs FP32 twin 0.105 (8.7x)" over the late steps.
std::string loss_text(double run, double twin) {
    return "training loss " + significant_text(run, 3) + " vs FP32 twin " + significant_text(twin, 3) + " (" +
           significant_text(run / twin, 3) + "x)";
}

}  // namespace

ScenarioReport check_pure_fp16_lost_updates(Backend& backend, const ScenarioProgress& progress) {
    const RunConfig config = scenario_config("pure-fp16-lost-updates", {"telemetry.hist_every=0"});
    const RunResult bare = run_to_end(backend, config, run_options(progress, 0, 0.5, "FP16 weights, no master"));
    const RunResult master = run_to_end(
        backend, scenario_config(config.name, {"telemetry.hist_every=0", "precision.master_weights=true"}),
        run_options(progress, 0.5, 1, "precision.master_weights=true"));

    const double lost_late = late_mean(bare, lost);
    const double bare_ratio = late_mean(bare, loss) / late_mean(bare, loss_ref);
    const double master_ratio = late_mean(master, loss) / late_mean(master, loss_ref);
    ScenarioReport report{config.name, {}};
    report.verdicts.push_back(make_verdict(
        lost_late >= kLostNeeded, "no master weights: " + percent_text(lost_late) +
                                      " of the non-zero updates were lost (w + lr*u == w in FP16) over the last " +
                                      percent_text(kLateShare, 0) + " of the steps (needs >= " +
                                      percent_text(kLostNeeded, 0) + ")"));
    report.verdicts.push_back(make_verdict(
        bare_ratio >= kStallRatio, "no master weights, late steps: " +
                                       loss_text(late_mean(bare, loss), late_mean(bare, loss_ref)) +
                                       ": the loss lags behind (needs >= " + significant_text(kStallRatio, 3) + "x)"));
    report.verdicts.push_back(make_verdict(
        master_ratio <= kMasterRatio, "precision.master_weights=true, late steps: " +
                                          loss_text(late_mean(master, loss), late_mean(master, loss_ref)) +
                                          ", lost updates " + percent_text(late_mean(master, lost)) +
                                          ": it trains (needs <= " + significant_text(kMasterRatio, 3) + "x)"));
    return report;
}

}  // namespace plab
