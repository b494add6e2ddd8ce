// gradient-census: seed 004's "67% of the values would flush to zero in FP16"
// measured here: of every non-zero true value (the FP32 twin's) of each tensor
// kind, over every layer and training step, the share that FP16 rounds to 0.
#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"

namespace plab {

namespace {

constexpr double kSeedFigure = 0.67;       // seed 004 (SSD, from the Mixed Precision Training paper)
constexpr double kActGradNeeded = 0.20;    // the census must find a large share in the activation gradients
constexpr double kWeightsAllowed = 0.001;  // and next to none in the weights

}  // namespace

ScenarioReport check_gradient_census(Backend& backend, const ScenarioProgress& progress) {
    const RunConfig config = scenario_config("gradient-census", {"telemetry.hist_every=0"});
    std::vector<TwinFlushMeter> meters;
    for (TensorKind kind : kTensorKinds) meters.emplace_back(backend, kind, FormatId::fp16);
    RunToEndOptions measured = run_options(progress, 0, 1, "census of the FP32 twin's values");
    measured.after_step = [&meters](const Trainer& t, const StepRecord& r) {
        for (TwinFlushMeter& m : meters) m.measure(t, r);
    };
    run_to_end(backend, config, measured);
    auto share = [&meters](TensorKind kind) { return meters[static_cast<std::size_t>(kind)].total().fraction(); };
    const std::string layers = std::to_string(config.model.hidden.size() + 1) + " layers, " +
                               std::to_string(config.steps) + " steps";
    ScenarioReport report{config.name, {}};
    const double weights = share(TensorKind::weight);
    report.verdicts.push_back(make_verdict(weights <= kWeightsAllowed,
                                           "weights: " + percent_text(weights, 2) +
                                               " of the non-zero values flush to zero in FP16 (needs <= " +
                                               percent_text(kWeightsAllowed, 1) + ": weights are O(0.1))"));
    const double act_grads = share(TensorKind::activation_grad);
    const double activations = share(TensorKind::activation);
    report.verdicts.push_back(make_verdict(activations < act_grads / 10,
                                           "activations: " + percent_text(activations, 2) +
                                               " flush (needs < a tenth of the activation grads' share: forward "
                                               "values carry no 1/batch)"));
    const double weight_grads = share(TensorKind::weight_grad);
    report.verdicts.push_back(make_verdict(weight_grads < act_grads / 10,
                                           "weight grads: " + percent_text(weight_grads, 2) +
                                               " flush (needs < a tenth of the activation grads' share: each sums "
                                               "the batch's rows, so it is larger)"));
    report.verdicts.push_back(make_verdict(
        act_grads >= kActGradNeeded,
        "activation grads: " + percent_text(act_grads) + " flush to zero in FP16, over " + layers +
            " (needs >= " + percent_text(kActGradNeeded, 0) + "); seed 004 cites " + percent_text(kSeedFigure, 0) +
            " for the SSD detector's gradients: per-row gradients carry the 1/batch of the mean loss and shrink "
            "once rows are fit, so the share grows with the batch, the depth and the training time"));
    return report;
}

}  // namespace plab
