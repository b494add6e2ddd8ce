// clip-before-unscale: the classic bug of clipping the scaled gradients
// (optimizer.clip_scaled). Their norm is S times the true one, so clipping
// to clip_norm shrinks every update by about S and training stalls; clipping
// after the unscale (the default) trains like the FP32 twin.
#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"

#include <cmath>

#include "engine/common/number_text.h"

namespace plab {

namespace {
constexpr double kShrinkNeeded = 1000;  // the bug's updates at least this many times smaller
constexpr double kUnderTwin = 0.20;     // the bug's accuracy at least this far under its twin
constexpr double kNearTwin = 0.02;      // the fixed run's accuracy at most this far from its twin

// The L2 norm of each step's change of every Linear weight of the mixed
// model, averaged over the run (as RunToEndOptions::after_step).
class UpdateMeter {
public:
    explicit UpdateMeter(Backend& backend) : backend_(backend) {}
    void measure(const Trainer& trainer) {
        std::vector<float> now;
        for (const Linear& l : trainer.model().linears()) {
            std::vector<float> w(l.weight.value.size());
            backend_.download(l.weight.value, w.data());
            now.insert(now.end(), w.begin(), w.end());
        }
        if (!before_.empty()) {
            double sum = 0;
            for (std::size_t i = 0; i < now.size(); ++i) {
                const double d = static_cast<double>(now[i]) - before_[i];
                sum += d * d;
            }
            total_ += std::sqrt(sum);
            ++steps_;
        }
        before_ = std::move(now);
    }
    double mean() const { return steps_ > 0 ? total_ / static_cast<double>(steps_) : 0.0; }

private:
    Backend& backend_;
    std::vector<float> before_;
    double total_ = 0;
    int steps_ = 0;
};

struct MeasuredRun {
    RunResult run;
    double mean_update = 0;
};

MeasuredRun measured_run(Backend& backend, const RunConfig& config, RunToEndOptions options) {
    UpdateMeter meter(backend);
    meter.measure(Trainer(backend, config));  // the initial weights: every run starts from the same
    options.after_step = [&](const Trainer& trainer, const StepRecord&) { meter.measure(trainer); };
    MeasuredRun m{run_to_end(backend, config, options), 0};
    m.mean_update = meter.mean();
    return m;
}

}  // namespace

ScenarioReport check_clip_before_unscale(Backend& backend, const ScenarioProgress& progress) {
    const RunConfig config = scenario_config("clip-before-unscale", {"telemetry.hist_every=0"});
    const MeasuredRun bug = measured_run(backend, config, run_options(progress, 0, 0.5, "optimizer.clip_scaled=true"));
    const MeasuredRun fixed =
        measured_run(backend, scenario_config(config.name, {"telemetry.hist_every=0", "optimizer.clip_scaled=false"}),
                     run_options(progress, 0.5, 1, "optimizer.clip_scaled=false"));

    const double shrink = fixed.mean_update / bug.mean_update;
    const std::int64_t clipped = count_steps(bug.run.records, [](const StepRecord& r) { return r.clipped; });
    ScenarioReport report{config.name, {}};
    report.verdicts.push_back(make_verdict(
        shrink >= kShrinkNeeded,
        "mean weight update per step: " + significant_text(bug.mean_update, 3) + " clipping the scaled gradients vs " +
            significant_text(fixed.mean_update, 3) + " clipping after the unscale: " + significant_text(shrink, 3) +
            "x smaller at loss scale " + power_of_two_text(config.scaler.init_scale) + ", " + std::to_string(clipped) +
            " of " + std::to_string(bug.run.records.size()) + " steps clipped (needs >= " +
            significant_text(kShrinkNeeded, 3) + "x)"));
    report.verdicts.push_back(accuracy_under_twin("optimizer.clip_scaled=true", final_accuracy(bug.run.records),
                                                  kUnderTwin));
    report.verdicts.push_back(accuracy_near_twin("optimizer.clip_scaled=false", final_accuracy(fixed.run.records),
                                                 kNearTwin));
    return report;
}

}  // namespace plab
