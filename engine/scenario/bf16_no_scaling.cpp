// bf16-no-scaling: the model and data of underflow-no-scaling in AMP BF16,
// scaler off. BF16 has FP32's exponent range: the gradients that FP16 flushes
// stay non-zero and the run keeps up with its FP32 twin without scaling.
#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"

namespace plab {

namespace {
constexpr double kBf16FlushAllowed = 0.001;
constexpr double kGapAllowed = 0.005;
}  // namespace

ScenarioReport check_bf16_no_scaling(Backend& backend, const ScenarioProgress& progress) {
    const RunConfig config = scenario_config("bf16-no-scaling", {"telemetry.hist_every=0"});
    TwinFlushMeter bf16(backend, TensorKind::weight_grad, FormatId::bf16);
    TwinFlushMeter fp16(backend, TensorKind::weight_grad, FormatId::fp16);
    RunToEndOptions measured = run_options(progress, 0, 1, "AMP BF16, scaler off");
    measured.after_step = [&](const Trainer& t, const StepRecord& r) {
        bf16.measure(t, r);
        fp16.measure(t, r);
    };
    const RunResult run = run_to_end(backend, config, measured);
    const int worst = bf16.worst_layer();
    const double flushed = bf16.per_layer().at(static_cast<std::size_t>(worst)).fraction();
    const int fp16_worst = fp16.worst_layer();
    ScenarioReport report{config.name, {}};
    report.verdicts.push_back(make_verdict(
        flushed <= kBf16FlushAllowed,
        "weight grads flush to zero in BF16: " + percent_text(flushed, 3) + " of the non-zero true values at most (fc" +
            std::to_string(worst + 1) + "; needs <= " + percent_text(kBf16FlushAllowed) + "); in FP16 fc" +
            std::to_string(fp16_worst + 1) + " would lose " +
            percent_text(fp16.per_layer().at(static_cast<std::size_t>(fp16_worst)).fraction())));
    report.verdicts.push_back(accuracy_near_twin("AMP BF16, scaler off", final_accuracy(run.records), kGapAllowed));
    return report;
}

}  // namespace plab
