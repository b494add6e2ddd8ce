// tiny-gpt-fp8-delayed-scaling: the tiny GPT with FP8 matmuls. Unscaled, a
// large share of the true activation gradients lie below E5M2's range and
// the cast flushes them; delayed per-tensor scaling cuts what it flushes
// several times. What scaling cannot restore is mantissa: from the same
// weights (step 1) the FP8 weight gradients are far further from the FP32
// twin's than BF16's. Both runs still end near the twin's test loss.
#include <algorithm>
#include <vector>

#include "engine/common/number_text.h"
#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"
#include "engine/train/preset_rules.h"

namespace plab {

namespace {

constexpr double kFlushNeeded = 0.3;       // of the true activation grads, unscaled
constexpr double kFlushCutNeeded = 4.0;    // scaling divides what the cast flushes at least by this
constexpr double kErrorRatioNeeded = 5.0;  // step-1 gradient error, FP8 over BF16
constexpr double kNearTwin = 0.05;         // test loss apart from the twin's

// The median over the matmul layers (the first `matmuls` of the records'
// layers; the embedding tables after them compute no FP8 matmul) of the
// weight gradients' relative distance to the twin's at step 1, where both
// start from the same weights.
double first_step_gradient_error(const std::vector<StepRecord>& records, std::size_t matmuls) {
    const std::vector<LayerRecord>& layers = records.front().layers;
    std::vector<double> d;
    for (std::size_t i = 0; i < std::min(matmuls, layers.size()); ++i) d.push_back(layers[i].grad_rel_dist);
    std::nth_element(d.begin(), d.begin() + static_cast<std::ptrdiff_t>(d.size() / 2), d.end());
    return d[d.size() / 2];
}

}  // namespace

ScenarioReport check_tiny_gpt_fp8_delayed_scaling(Backend& backend, const ScenarioProgress& progress) {
    const RunConfig config = scenario_config("tiny-gpt-fp8-delayed-scaling", {"telemetry.hist_every=0"});
    ScenarioReport report{config.name, {}};

    const Fp8ScalingRuns runs = run_fp8_scaling_pair(backend, config, progress, 0, 0.35, 0.7);
    const RunResult& scaled = runs.scaled;
    const CastFlushMeter& scaled_cast = runs.scaled_cast;
    const CastFlushMeter& unscaled_cast = runs.unscaled_cast;

    RunToEndOptions bf16_options = run_options(progress, 0.7, 1, "precision.recipe=amp-bf16");
    bf16_options.keep_layers = true;
    const RunResult bf16 = run_to_end(
        backend, scenario_config(config.name, {"telemetry.hist_every=0", "precision.recipe=amp-bf16"}), bf16_options);

    const double flushed = runs.true_flushed;
    report.verdicts.push_back(make_verdict(
        flushed >= kFlushNeeded, "fp8_scaling=none: " + percent_text(flushed) +
                                     " of the non-zero true (FP32 twin) activation grads lie below E5M2's range and "
                                     "flush to zero, over " + std::to_string(config.steps) + " steps (needs >= " +
                                     percent_text(kFlushNeeded, 0) + ")"));
    const double cut = runs.cut();
    report.verdicts.push_back(make_verdict(
        cut >= kFlushCutNeeded, "the E5M2 cast flushes " + percent_text(unscaled_cast.fraction()) +
                                    " of the non-zero activation grads it sees unscaled, " +
                                    percent_text(scaled_cast.fraction(), 2) + " with delayed scaling (grad scales " +
                                    scaled_cast.scales_text() + "): " + significant_text(cut, 3) +
                                    "x fewer (needs >= " + significant_text(kFlushCutNeeded, 2) + "x)"));
    const std::size_t matmuls = model_layer_names(config.model).size();
    const double fp8_error = first_step_gradient_error(scaled.records, matmuls);
    const double bf16_error = first_step_gradient_error(bf16.records, matmuls);
    report.verdicts.push_back(make_verdict(
        fp8_error >= kErrorRatioNeeded * bf16_error,
        "step 1, from the twin's own weights (every FP8 scale still 1): the weight gradients are " + percent_text(fp8_error, 2) +
            " from the twin's in FP8, " + percent_text(bf16_error, 2) + " in BF16 (median over the " +
            std::to_string(matmuls) + " matmuls; needs FP8 >= " +
            significant_text(kErrorRatioNeeded, 2) + "x BF16)"));
    report.verdicts.push_back(test_loss_near_twin("FP8, delayed scaling", final_test_loss(scaled.records), kNearTwin));
    report.verdicts.push_back(test_loss_near_twin("AMP BF16", final_test_loss(bf16.records), kNearTwin));
    return report;
}

}  // namespace plab
