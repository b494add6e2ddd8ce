// loss-off-fp32-list: the loss taken off autocast's FP32 list bites. With
// logits in the hundreds a batch's per-row losses, each finite in FP16, sum
// past 65504 inside the reduction and the loss reads Inf; the NaN tracer
// names the loss. The gradient never reads the loss value, so the run still
// tracks its twin, as it does with the loss on the list, where every loss
// is finite.
#include <cmath>
#include <string>

#include "engine/common/number_text.h"
#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"

namespace plab {

namespace {

constexpr std::int64_t kInfStepsAtLeast = 5;  // leading steps whose loss must read Inf
constexpr double kNearTwin = 0.01;            // test accuracy, either list

bool finite_loss(const StepRecord& r) { return std::isfinite(r.loss); }

Verdict tracer_names_the_loss(const RunResult& traced) {
    const bool holds = traced.nan && traced.nan->phase == Phase::loss && traced.nan->op == "cross_entropy";
    const std::string found = traced.nan ? "step " + std::to_string(traced.nan->step) + ", " +
                                               std::string(phase_name(traced.nan->phase)) + " " + traced.nan->op +
                                               " of " + traced.nan->layer + " (logits' amax " +
                                               significant_text(traced.nan->input_amax, 4) + ")"
                                         : std::string("nothing");
    return make_verdict(holds, "--trace-nan's first non-finite op: " + found + " (needs the loss's cross_entropy)");
}

// The loss reads Inf on the leading steps only, and the twin's never does.
Verdict loss_reads_inf_at_first(const RunResult& run) {
    const auto& r = run.records;
    std::size_t leading = 0;
    while (leading < r.size() && !finite_loss(r[leading])) ++leading;
    const std::int64_t inf = count_steps(r, [](const StepRecord& s) { return !finite_loss(s); });
    const std::int64_t twin_inf = count_steps(r, [](const StepRecord& s) { return !std::isfinite(s.loss_ref); });
    const float first_twin = r.empty() ? std::nanf("") : r.front().loss_ref;
    const bool holds = static_cast<std::int64_t>(leading) >= kInfStepsAtLeast && inf == static_cast<std::int64_t>(leading) &&
                       twin_inf == 0;
    const std::string steps = leading > 0 ? "steps 1-" + std::to_string(leading) : std::string("no leading step");
    return make_verdict(holds, "the loss reads Inf on " + steps + " (" + std::to_string(inf) +
                                   " of " + std::to_string(r.size()) + " steps), the twin's on " +
                                   std::to_string(twin_inf) + " (its first loss " + significant_text(first_twin, 4) +
                                   " over " + std::to_string(run.config.batch_size) + " rows: a sum of about " +
                                   significant_text(first_twin * run.config.batch_size, 4) + ") (needs >= " +
                                   std::to_string(kInfStepsAtLeast) +
                                   " leading steps, none later, none for the twin)");
}

Verdict finite_on_the_list(const RunResult& run) {
    const std::int64_t inf = count_steps(run.records, [](const StepRecord& s) { return !finite_loss(s); });
    return make_verdict(inf == 0, "loss on the FP32 list: " + std::to_string(inf) + " of " +
                                      std::to_string(run.records.size()) + " losses non-finite (needs none)");
}

}  // namespace

ScenarioReport check_loss_off_fp32_list(Backend& backend, const ScenarioProgress& progress) {
    const RunConfig config = scenario_config("loss-off-fp32-list", {"telemetry.hist_every=0"});
    ScenarioReport report{config.name, {}};
    report.verdicts.push_back(
        tracer_names_the_loss(run_traced(backend, config, progress, 0, 0.1, "loss off the FP32 list, --trace-nan")));

    const RunResult off = run_to_end(backend, config, run_options(progress, 0.1, 0.55, "loss off the FP32 list"));
    report.verdicts.push_back(loss_reads_inf_at_first(off));
    report.verdicts.push_back(accuracy_near_twin("loss off the FP32 list", final_accuracy(off.records), kNearTwin));

    const RunConfig listed = scenario_config(config.name, {"telemetry.hist_every=0", kAutocastFp32OpsSetting});
    const RunResult on = run_to_end(backend, listed, run_options(progress, 0.55, 1, "loss on the FP32 list"));
    report.verdicts.push_back(finite_on_the_list(on));
    report.verdicts.push_back(accuracy_near_twin("loss on the FP32 list", final_accuracy(on.records), kNearTwin));
    return report;
}

}  // namespace plab
