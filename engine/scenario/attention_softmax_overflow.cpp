// attention-softmax-overflow: a tiny self-attention block whose softmax
// multiplies its scores by a large logit scale. Off the FP32 list the scaled
// logits are rounded to FP16, pass 65504 and become Inf, and the softmax's
// max subtraction makes NaN of them: every step is skipped. On the FP32 list
// the same logits are finite and the run follows its twin.
#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"

#include <cmath>

#include "engine/common/number_text.h"
#include "engine/numeric/range_table.h"

namespace plab {

namespace {
constexpr double kSkippedNeeded = 0.9;  // of the FP16-softmax run's steps
constexpr double kUnderTwin = 0.20;
constexpr double kNearTwin = 0.03;
constexpr double kFp32SkippedAtMost = 0.05;

std::string step_share(std::int64_t n, std::size_t of) {
    return std::to_string(n) + " of " + std::to_string(of) + " steps";
}

Verdict traced_verdict(const RunResult& traced, float logit_scale) {
    if (!traced.nan)
        return make_verdict(false, "softmax in FP16, traced: no NaN/Inf in " + std::to_string(traced.records.size()) +
                                       " steps (needs a forward overflow in the attention softmax)");
    const NanReport& r = *traced.nan;
    const double logit = static_cast<double>(r.input_amax) * logit_scale;
    const double fp16_max = format_range(FormatId::fp16).max;
    const bool holds = r.phase == Phase::forward && r.layer == "attn" && r.op == "softmax" && logit > fp16_max;
    return make_verdict(holds, "softmax in FP16, traced: first non-finite at step " + std::to_string(r.step) + ", " +
                                   std::string(phase_name(r.phase)) + " " + r.op + " of " + r.layer +
                                   ": scores amax " + significant_text(r.input_amax, 4) + " x logit scale " +
                                   significant_text(logit_scale, 4) + " = " + significant_text(logit, 4) + " > " +
                                   significant_text(fp16_max, 6) + " (needs the forward softmax of attn)");
}

}  // namespace

ScenarioReport check_attention_softmax_overflow(Backend& backend, const ScenarioProgress& progress) {
    const RunConfig config = scenario_config("attention-softmax-overflow", {"telemetry.hist_every=0"});
    ScenarioReport report{config.name, {}};

    report.verdicts.push_back(traced_verdict(run_traced(backend, config, progress, 0, 0.1, "softmax in FP16, --trace-nan"),
                                             config.model.attention_logit_scale));

    const RunResult fp16 = run_to_end(backend, config, run_options(progress, 0.1, 0.55, "softmax in FP16"));
    const std::int64_t skipped = count_steps(fp16.records, [](const StepRecord& r) { return r.skipped; });
    const double share = static_cast<double>(skipped) / static_cast<double>(fp16.records.size());
    report.verdicts.push_back(make_verdict(
        share >= kSkippedNeeded, "softmax in FP16: " + step_share(skipped, fp16.records.size()) +
                                     " skipped for non-finite gradients, loss scale ended at " +
                                     power_of_two_text(fp16.records.back().scale) +
                                     ": no loss scale helps a forward overflow (needs >= " +
                                     percent_text(kSkippedNeeded, 0) + " skipped)"));
    report.verdicts.push_back(accuracy_under_twin("softmax in FP16", final_accuracy(fp16.records), kUnderTwin));

    RunToEndOptions fp32_options = run_options(progress, 0.55, 1, "softmax on the FP32 list");
    fp32_options.trainer.trace_nan = true;
    const RunResult fp32 =
        run_to_end(backend, scenario_config(config.name, {"telemetry.hist_every=0", kAutocastFp32OpsSetting}),
                   fp32_options);
    // A backward overflow now and then is the dynamic scaler's everyday job
    // (the logit scale multiplies the softmax's gradient too); the forward
    // pass, whose loss every record holds, must stay finite.
    const std::int64_t forward_bad =
        count_steps(fp32.records, [](const StepRecord& r) { return !std::isfinite(r.loss); });
    const std::int64_t skipped32 = count_steps(fp32.records, [](const StepRecord& r) { return r.skipped; });
    const bool forward_traced = fp32.nan && fp32.nan->phase == Phase::forward;
    const double skipped_share = static_cast<double>(skipped32) / static_cast<double>(fp32.records.size());
    report.verdicts.push_back(make_verdict(
        forward_bad == 0 && !forward_traced && skipped_share <= kFp32SkippedAtMost,
        "softmax on the FP32 list: forward finite on " + step_share(fp32.records.size() - forward_bad,
                                                                     fp32.records.size()) +
            (fp32.nan ? ", first non-finite traced: " + std::string(phase_name(fp32.nan->phase)) + " " + fp32.nan->op +
                            " of " + fp32.nan->layer + " at step " + std::to_string(fp32.nan->step)
                      : std::string(", no NaN/Inf traced")) +
            ", " + step_share(skipped32, fp32.records.size()) +
            " skipped by the dynamic scaler (needs a finite forward on every step, <= " +
            percent_text(kFp32SkippedAtMost, 0) + " skipped)"));
    report.verdicts.push_back(accuracy_near_twin("softmax on the FP32 list", final_accuracy(fp32.records), kNearTwin));
    return report;
}

}  // namespace plab
