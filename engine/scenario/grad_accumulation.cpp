// grad-accumulation: 4 micro-batches per optimizer step. The scaled gradients
// are summed over the micro-batches and unscaled once: one finite check and
// one scaler update per optimizer step, never one per micro-batch.
#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"

#include "engine/common/number_text.h"

namespace plab {

namespace {

constexpr double kGapAllowed = 0.01;

// What the scaler's records show, step by step, against one update per step.
struct ScalerAudit {
    std::int64_t clean = 0, clean_ok = 0;        // clean steps; those whose growth tracker moved by exactly 1
    std::int64_t overflows = 0, overflow_ok = 0;  // overflow steps; those backed off exactly once and skipped
    std::int64_t growths = 0, growths_expected = 0;
};

ScalerAudit audit(const std::vector<StepRecord>& records, const ScalerConfig& s) {
    ScalerAudit a;
    int tracker = 0;  // the growth tracker before the step, as the PyTorch rule keeps it
    for (const StepRecord& r : records) {
        if (r.found_inf) {
            ++a.overflows;
            a.overflow_ok += r.skipped && r.backoff && r.scale_after == r.scale * s.backoff_factor && r.growth_tracker == 0;
            tracker = 0;
            continue;
        }
        ++a.clean;
        const int expected = tracker + 1 == s.growth_interval ? 0 : tracker + 1;
        a.growths_expected += tracker + 1 == s.growth_interval;
        a.growths += r.growth;
        a.clean_ok += r.growth_tracker == expected && !r.skipped;
        tracker = r.growth_tracker;
    }
    return a;
}

}  // namespace

ScenarioReport check_grad_accumulation(Backend& backend, const ScenarioProgress& progress) {
    const RunConfig config = scenario_config("grad-accumulation", {"telemetry.hist_every=0"});
    const RunResult run = run_to_end(backend, config, run_options(progress, 0, 1, "training"));
    const ScalerAudit a = audit(run.records, config.scaler);
    const std::string per = " (" + std::to_string(config.optimizer.accumulation) + " micro-batches of " +
                            std::to_string(config.batch_size) + " rows each)";
    ScenarioReport report{config.name, {}};
    report.verdicts.push_back(make_verdict(
        a.clean > 0 && a.clean_ok == a.clean,
        std::to_string(a.clean_ok) + " of " + std::to_string(a.clean) +
            " clean steps advanced the scaler's growth tracker by exactly 1" + per + " (needs all)"));
    report.verdicts.push_back(make_verdict(
        a.growths == a.growths_expected && a.growths >= 2,
        std::to_string(a.growths) + " growths, one per " + std::to_string(config.scaler.growth_interval) +
            " clean optimizer steps: expected " + std::to_string(a.growths_expected) + " (needs equal, and >= 2)"));
    report.verdicts.push_back(make_verdict(
        a.overflows > 0 && a.overflow_ok == a.overflows,
        std::to_string(a.overflow_ok) + " of " + std::to_string(a.overflows) +
            " overflow steps were skipped once and backed off once (x" +
            significant_text(config.scaler.backoff_factor, 3) + ", not x" +
            significant_text(config.scaler.backoff_factor, 3) + "^" + std::to_string(config.optimizer.accumulation) +
            ") (needs all, and >= 1)"));
    report.verdicts.push_back(accuracy_near_twin("accumulated AMP FP16", final_accuracy(run.records), kGapAllowed));
    return report;
}

}  // namespace plab
