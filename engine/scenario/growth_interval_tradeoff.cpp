// growth-interval-tradeoff: one run to a checkpoint, where an event drops the
// loss scale (set low at the fork), then two forks that differ only in
// scaler.growth_interval. The short interval climbs back to a high scale
// sooner and, once at the overflow limit, probes it more often: more
// skipped steps. Both are counted from the forks' records.
#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"

#include <memory>
#include <optional>

#include "engine/common/field_check.h"
#include "engine/common/number_text.h"

namespace plab {

namespace {
constexpr int kForkAt = 100;           // the checkpoint's step
constexpr float kDroppedScale = 256;   // the scale the event leaves (2^8)
constexpr int kLongInterval = 2000;    // PyTorch's default
constexpr int kShortInterval = 50;

struct ForkResult {
    int interval = 0;
    std::vector<StepRecord> records;
    std::optional<std::int64_t> recovered_at;  // first step whose scale is back at the checkpoint's
    std::int64_t skipped = 0;
};

ForkResult run_fork(const Trainer& checkpoint, int interval, float target, int steps, const ProgressSlice& progress) {
    std::unique_ptr<Run> fork = checkpoint.clone();
    fork->apply("scaler.scale=" + shortest_number(kDroppedScale));
    fork->apply("scaler.growth_interval=" + std::to_string(interval));
    ForkResult r{interval, {}, std::nullopt, 0};
    for (int i = 0; i < steps; ++i) {
        StepRecord record = fork->step();
        record.layers = {};
        if (!r.recovered_at && record.scale >= target) r.recovered_at = record.step;
        r.skipped += record.skipped;
        r.records.push_back(std::move(record));
        progress.report(static_cast<double>(i + 1) / steps);
    }
    return r;
}

std::string fork_text(const ForkResult& f, float target) {
    return "growth_interval " + std::to_string(f.interval) + ": " +
           (f.recovered_at ? "back at " + power_of_two_text(target) + " at step " + std::to_string(*f.recovered_at)
                           : "not back at " + power_of_two_text(target) + " by step " +
                                 std::to_string(f.records.back().step)) +
           ", " + std::to_string(f.skipped) + " skipped steps";
}

}  // namespace

ScenarioReport check_growth_interval_tradeoff(Backend& backend, const ScenarioProgress& progress) {
    const RunConfig config = scenario_config("growth-interval-tradeoff", {"telemetry.hist_every=0"});
    Trainer main(backend, config);
    for (int i = 0; i < kForkAt; ++i) main.step();
    const float target = main.scaler().scale();  // the scale the event took away
    const int steps = config.steps - kForkAt;
    const ForkResult slow = run_fork(main, kLongInterval, target, steps,
                                     {&progress, 0.1, 0.55, "fork: growth_interval " + std::to_string(kLongInterval)});
    const ForkResult fast = run_fork(main, kShortInterval, target, steps,
                                     {&progress, 0.55, 1, "fork: growth_interval " + std::to_string(kShortInterval)});

    ScenarioReport report{config.name, {}};
    const std::string event = "from a checkpoint at step " + std::to_string(kForkAt) + " (scale " +
                              power_of_two_text(target) + ") with the scale dropped to " +
                              power_of_two_text(kDroppedScale) + ": ";
    const bool faster = fast.recovered_at && (!slow.recovered_at || *fast.recovered_at < *slow.recovered_at);
    report.verdicts.push_back(make_verdict(faster, event + fork_text(fast, target) + "; " + fork_text(slow, target) +
                                                       " (needs the short interval back first)"));
    report.verdicts.push_back(make_verdict(
        fast.skipped > slow.skipped, "skipped steps after the fork: " + std::to_string(fast.skipped) +
                                         " with growth_interval " + std::to_string(kShortInterval) + " vs " +
                                         std::to_string(slow.skipped) + " with " + std::to_string(kLongInterval) +
                                         " (needs more with the short interval: each growth probes the limit)"));
    return report;
}

}  // namespace plab
