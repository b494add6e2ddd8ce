// underflow-no-scaling: AMP FP16 with the loss scaler off. The true gradients
// are small enough that FP16 flushes many of them to zero and the run falls
// behind its FP32 twin; dynamic loss scaling brings it back.
#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"

namespace plab {

namespace {
constexpr double kFlushNeeded = 0.30;
constexpr double kGapNeeded = 0.05;
constexpr double kScaledGapAllowed = 0.005;
}  // namespace

ScenarioReport check_underflow_no_scaling(Backend& backend, const ScenarioProgress& progress) {
    const RunConfig config = scenario_config("underflow-no-scaling", {"telemetry.hist_every=0"});
    TwinFlushMeter meter(backend, TensorKind::weight_grad, FormatId::fp16);
    RunToEndOptions measured = run_options(progress, 0, 0.5, "AMP FP16, scaler off");
    measured.after_step = [&meter](const Trainer& t, const StepRecord& r) { meter.measure(t, r); };
    const RunResult unscaled = run_to_end(backend, config, measured);
    const RunResult scaled =
        run_to_end(backend, scenario_config(config.name, {"telemetry.hist_every=0", "scaler.kind=dynamic"}),
                   run_options(progress, 0.5, 1, "AMP FP16, scaler.kind=dynamic"));

    const int worst = meter.worst_layer();
    const double flushed = meter.per_layer().at(static_cast<std::size_t>(worst)).fraction();
    ScenarioReport report{config.name, {}};
    report.verdicts.push_back(make_verdict(
        flushed >= kFlushNeeded, "fc" + std::to_string(worst + 1) + " weight grads: " + percent_text(flushed) +
                                     " of the non-zero true (FP32 twin) values flush to zero in FP16, over " +
                                     std::to_string(unscaled.records.size()) + " steps (needs >= " +
                                     percent_text(kFlushNeeded, 0) + ")"));
    report.verdicts.push_back(accuracy_under_twin("scaler off", final_accuracy(unscaled.records), kGapNeeded));
    report.verdicts.push_back(
        accuracy_near_twin("scaler.kind=dynamic", final_accuracy(scaled.records), kScaledGapAllowed));
    return report;
}

}  // namespace plab
