// overflow-nan: a forward value beyond FP16's 65504 (the logits of a model
// growing ever more confident) becomes Inf, then NaN. The NaN tracer names
// where; keeping that layer in FP32, or computing in BF16, runs finite.
#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"

#include "engine/common/number_text.h"

namespace plab {

namespace {

std::string where_text(const NanReport& r) {
    return "step " + std::to_string(r.step) + ", " + std::string(phase_name(r.phase)) + " " + r.op + " of " + r.layer +
           " (" + std::string(format_name(r.format)) + " output, input amax " + significant_text(r.input_amax, 4) + ")";
}

// The whole run in trace mode: finite when the tracer never fired and no step overflowed.
Verdict runs_finite(Backend& backend, const RunConfig& base, const std::vector<std::string>& change,
                    RunToEndOptions options) {
    std::vector<std::string> settings = {"telemetry.hist_every=0"};
    settings.insert(settings.end(), change.begin(), change.end());
    options.trainer.trace_nan = true;
    const RunResult run = run_to_end(backend, scenario_config(base.name, settings), options);
    const std::int64_t overflows = count_steps(run.records, [](const StepRecord& r) { return r.found_inf; });
    std::string label;
    for (const std::string& s : change) label += (label.empty() ? "" : " ") + s;
    return make_verdict(!run.nan && overflows == 0,
                        label + ": " + std::to_string(run.records.size()) + " steps, " +
                            (run.nan ? "first non-finite at " + where_text(*run.nan) : std::string("no NaN/Inf traced")) +
                            ", " + std::to_string(overflows) + " overflow steps (needs none of either)");
}

}  // namespace

ScenarioReport check_overflow_nan(Backend& backend, const ScenarioProgress& progress) {
    const RunConfig config = scenario_config("overflow-nan", {"telemetry.hist_every=0"});
    const RunResult traced = run_traced(backend, config, progress, 0, 0.2, "AMP FP16 with --trace-nan");
    ScenarioReport report{config.name, {}};
    if (!traced.nan) {
        report.verdicts.push_back(make_verdict(false, "no NaN/Inf in " + std::to_string(traced.records.size()) +
                                                          " traced steps (needs a forward overflow)"));
        return report;
    }
    const NanReport& nan = *traced.nan;
    const bool forward_layer = nan.phase == Phase::forward && nan.layer.starts_with("fc");
    report.verdicts.push_back(make_verdict(
        forward_layer, "traced: first non-finite at " + where_text(nan) + " (needs a forward op of a Linear layer)"));
    report.verdicts.push_back(make_verdict(!nan.diagnosis.empty(), "diagnosis: " + nan.diagnosis));
    const std::string keep_fp32 = "precision.layer_overrides." + (forward_layer ? nan.layer : std::string("fc1")) + "=fp32";
    report.verdicts.push_back(runs_finite(backend, config, {keep_fp32}, run_options(progress, 0.2, 0.6, keep_fp32)));
    report.verdicts.push_back(runs_finite(backend, config, {"precision.recipe=amp-bf16", "scaler.kind=none"},
                                          run_options(progress, 0.6, 1, "precision.recipe=amp-bf16")));
    return report;
}

}  // namespace plab
