// pure-fp16-lost-updates: weights stored in FP16 without FP32 master weights.
// Once lr * update is below half an ULP of the weight, w + lr * u == w: the
// update is lost, and the loss stalls while its twin's keeps falling; FP32
// master weights keep every update.
#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"

#include "engine/common/number_text.h"

namespace plab {

namespace {
constexpr double kLostNeeded = 0.5;
constexpr double kStallShare = 0.25;    // over the second half the loss falls at most this share of the twin's fall
constexpr double kMasterRatio = 1.1;    // with master weights at most this many times
constexpr double kLateShare = 0.25;     // "late steps": the last quarter

double late_mean(const RunResult& run, double (*value)(const StepRecord&)) {
    return mean_over_late(run.records, kLateShare, value);
}
// How far `value` falls from the third quarter of the run (mean) to the last.
double late_fall(const RunResult& run, double (*value)(const StepRecord&)) {
    const std::size_t quarter = std::max<std::size_t>(run.records.size() / 4, 1);
    const double last_half = mean_over_last(run.records, 2 * quarter, value);
    const double last_quarter = mean_over_last(run.records, quarter, value);
    return 2 * (last_half - last_quarter);  // the third quarter's mean is 2 * half - quarter
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
    const double master_ratio = late_mean(master, loss) / late_mean(master, loss_ref);
    ScenarioReport report{config.name, {}};
    report.verdicts.push_back(make_verdict(
        lost_late >= kLostNeeded, "no master weights: " + percent_text(lost_late) +
                                      " of the non-zero updates were lost (w + lr*u == w in FP16) over the last " +
                                      percent_text(kLateShare, 0) + " of the steps (needs >= " +
                                      percent_text(kLostNeeded, 0) + ")"));
    const double fall = late_fall(bare, loss), twin_fall = late_fall(bare, loss_ref);
    report.verdicts.push_back(make_verdict(
        fall <= kStallShare * twin_fall,
        "no master weights: from the third quarter of the run to the last the training loss falls " +
            significant_text(fall, 3) + " against its FP32 twin's " + significant_text(twin_fall, 3) + " (" +
            percent_text(fall / twin_fall, 0) + " of it): the loss stalls (needs <= " + percent_text(kStallShare, 0) +
            "); late steps: " + loss_text(late_mean(bare, loss), late_mean(bare, loss_ref))));
    report.verdicts.push_back(make_verdict(
        master_ratio <= kMasterRatio, "precision.master_weights=true, late steps: " +
                                          loss_text(late_mean(master, loss), late_mean(master, loss_ref)) +
                                          ", lost updates " + percent_text(late_mean(master, lost)) +
                                          ": it trains (needs <= " + significant_text(kMasterRatio, 3) + "x)"));
    return report;
}

}  // namespace plab
