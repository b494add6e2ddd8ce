// tiny-gpt-loss-spike: five steps of garbled text in the middle of the
// tiny GPT's training. The loss spikes in both runs (the cause is the data,
// not the precision); the scaler, near the largest scale that fits, overflows
// on the spike's first steps and skips them, so the mixed run applies fewer
// garbage updates than its twin and is back on the text's loss first; later
// the scale grows again and the runs end close together.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/common/number_text.h"
#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"

namespace plab {

namespace {

constexpr double kSpikeAtLeast = 2.0;   // mean loss on the garbled steps / before them, both runs
constexpr int kBefore = 20;             // steps before the garbled ones that set the usual loss
constexpr int kAfter = 5;               // steps after them where the mixed run is back first
constexpr std::int64_t kSkippedAtLeast = 2;
constexpr double kEndNear = 0.05;       // test loss apart from the twin's at the end

// The records of the steps first .. first + count - 1 (those that exist).
std::vector<StepRecord> steps_between(const std::vector<StepRecord>& records, std::int64_t first, std::int64_t count) {
    std::vector<StepRecord> out;
    for (const StepRecord& r : records)
        if (r.step >= first && r.step < first + count) out.push_back(r);
    return out;
}

double mean_loss(const std::vector<StepRecord>& records, bool twin) {
    return mean_over_last(records, records.size(), [twin](const StepRecord& r) { return twin ? r.loss_ref : r.loss; });
}

struct Stretches {
    std::vector<StepRecord> before, garbled, after;
};

Stretches stretches(const RunResult& run) {
    const DatasetSpec& d = run.config.data;
    return {steps_between(run.records, d.garbled_from - kBefore, kBefore),
            steps_between(run.records, d.garbled_from, d.garbled_steps),
            steps_between(run.records, std::int64_t{d.garbled_from} + d.garbled_steps, kAfter)};
}

Verdict loss_spikes(const Stretches& s) {
    const double before = mean_loss(s.before, false), garbled = mean_loss(s.garbled, false);
    const double twin_before = mean_loss(s.before, true), twin_garbled = mean_loss(s.garbled, true);
    const bool holds = !s.garbled.empty() && garbled >= kSpikeAtLeast * before &&
                       twin_garbled >= kSpikeAtLeast * twin_before;
    return make_verdict(holds, "the garbled steps' mean loss is " + significant_text(garbled, 3) + ", up from " +
                                   significant_text(before, 3) + " on the " + std::to_string(kBefore) +
                                   " steps before; the FP32 twin's " + significant_text(twin_garbled, 3) + ", up from " +
                                   significant_text(twin_before, 3) + ": the spike is in the data (needs both >= " +
                                   significant_text(kSpikeAtLeast, 2) + "x)");
}

// The scaler overflows on the spike's first steps, skips them and backs off.
Verdict scaler_skips_the_spike(const Stretches& s) {
    std::int64_t leading = 0;  // skipped steps from the first garbled one on
    while (leading < static_cast<std::int64_t>(s.garbled.size()) && s.garbled[static_cast<std::size_t>(leading)].skipped)
        ++leading;
    const std::int64_t before = count_steps(s.before, [](const StepRecord& r) { return r.skipped; });
    const float scale_at = s.garbled.empty() ? 0.0f : s.garbled.front().scale;
    const float scale_after = s.garbled.empty() ? 0.0f : s.garbled.back().scale_after;
    return make_verdict(leading >= kSkippedAtLeast,
                        "the scaler skipped the first " + std::to_string(leading) + " of " +
                            std::to_string(s.garbled.size()) + " garbled steps (their scaled gradients overflowed "
                            "FP16) and the scale fell from " + power_of_two_text(scale_at) + " to " +
                            power_of_two_text(scale_after) + "; " + std::to_string(before) + " overflow(s) in the " +
                            std::to_string(kBefore) + " steps before (needs >= " + std::to_string(kSkippedAtLeast) +
                            " skipped from the first garbled step on)");
}

// Fewer garbage updates applied: on the text after the spike the mixed run's
// loss is below its twin's.
Verdict mixed_run_back_first(const Stretches& s) {
    const std::int64_t applied = count_steps(s.garbled, [](const StepRecord& r) { return !r.skipped; });
    const double mixed = mean_loss(s.after, false), twin = mean_loss(s.after, true);
    return make_verdict(!s.after.empty() && mixed < twin,
                        "the mixed run applied " + std::to_string(applied) + " of the " +
                            std::to_string(s.garbled.size()) + " garbage updates, the twin all of them; on the " +
                            std::to_string(s.after.size()) + " steps after, the mixed run's mean loss is " +
                            significant_text(mixed, 3) + ", the twin's " + significant_text(twin, 3) +
                            " (needs the mixed run's below)");
}

Verdict scale_grows_back(const RunResult& run, const Stretches& s) {
    const float low = s.garbled.empty() ? 0.0f : s.garbled.back().scale_after;
    const float end = run.records.back().scale_after;
    return make_verdict(end > low, "after the spike the scale grew from " + power_of_two_text(low) + " to " +
                                       power_of_two_text(end) + " by step " + std::to_string(run.records.back().step) +
                                       " (needs it above the spike's lowest)");
}

}  // namespace

ScenarioReport check_tiny_gpt_loss_spike(Backend& backend, const ScenarioProgress& progress) {
    const RunConfig config = scenario_config("tiny-gpt-loss-spike", {"telemetry.hist_every=0"});
    ScenarioReport report{config.name, {}};
    const RunResult run = run_to_end(backend, config, run_options(progress, 0, 1, "five garbled steps"));
    const Stretches s = stretches(run);
    report.verdicts.push_back(loss_spikes(s));
    report.verdicts.push_back(scaler_skips_the_spike(s));
    report.verdicts.push_back(mixed_run_back_first(s));
    report.verdicts.push_back(scale_grows_back(run, s));
    report.verdicts.push_back(test_loss_near_twin("at the end", final_test_loss(run.records), kEndNear));
    return report;
}

}  // namespace plab
