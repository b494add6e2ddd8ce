// tiny-gpt-fp8-delayed-scaling: delayed scaling keeps the activation
// gradients in E5M2's range, and FP8's step-1 gradients are further from the
// twin's than BF16's; re-measured element by element from a plain Trainer.
#include "scenario/scenario_test_util.h"

#include <algorithm>
#include <cmath>

#include "engine/model/model.h"
#include "engine/scenario/scenario_checks.h"

namespace plab {
namespace {

TEST(ScenarioTinyGptFp8DelayedScaling, VerdictsHold) {
    CpuBackend backend;
    scenario_test::expect_all_hold(check_tiny_gpt_fp8_delayed_scaling(backend, {}), "tiny-gpt-fp8-delayed-scaling");
}

// |x| <= 2^-17 (half E5M2's smallest subnormal, the tie to even) flushes to zero.
TEST(ScenarioTinyGptFp8DelayedScaling, UnscaledTheTwinsActivationGradsFlushInE5m2) {
    RunConfig config = load_preset("tiny-gpt-fp8-delayed-scaling");
    apply_settings(config, {"precision.fp8_scaling=none", "steps=20", "telemetry.hist_every=0"});
    CpuBackend backend;
    Trainer trainer(backend, config);
    scenario_test::FlushTally tally;
    tally.limit = std::ldexp(1.0f, -17);
    for (int i = 0; i < config.steps; ++i) {
        const StepRecord r = trainer.step();
        if (r.test_loss) continue;  // an evaluation replaced the activations
        const Model& twin = *trainer.twin_network();
        for (int l = 0; l < twin.layer_count(); ++l) tally.add(backend, twin.activation_grad(l));
    }
    std::printf("[ measured ] %.0f of %.0f non-zero true activation grads flush in E5M2 (%.1f%%)\n", tally.flushed,
                tally.nonzero, 100 * tally.share());
    EXPECT_GE(tally.share(), 0.3);
}

TEST(ScenarioTinyGptFp8DelayedScaling, FirstStepGradientsAreFurtherFromTheTwinInFp8ThanInBf16) {
    auto median_error = [](const std::string& recipe) {
        RunConfig config = load_preset("tiny-gpt-fp8-delayed-scaling");
        apply_settings(config, {"precision.recipe=" + recipe, "telemetry.hist_every=0"});
        CpuBackend backend;
        Trainer trainer(backend, config);
        trainer.step();
        const Model& mixed = trainer.network();
        const Model& twin = *trainer.twin_network();
        std::vector<double> errors;
        for (int l = 0; l < mixed.layer_count(); ++l) {
            const Tensor& g = mixed.layer_weight(l).master_grad;
            const Tensor& t = twin.layer_weight(l).master_grad;
            std::vector<float> a(g.size()), b(t.size());
            backend.download(g, a.data());
            backend.download(t, b.data());
            double diff = 0, norm = 0;
            for (std::size_t i = 0; i < a.size(); ++i) {
                diff += (static_cast<double>(a[i]) - b[i]) * (static_cast<double>(a[i]) - b[i]);
                norm += static_cast<double>(b[i]) * b[i];
            }
            errors.push_back(std::sqrt(diff / norm));
        }
        std::nth_element(errors.begin(), errors.begin() + static_cast<std::ptrdiff_t>(errors.size() / 2), errors.end());
        return errors[errors.size() / 2];
    };
    const double fp8 = median_error("fp8"), bf16 = median_error("amp-bf16");
    std::printf("[ measured ] step-1 weight gradient error, median over layers: FP8 %.4f, BF16 %.4f\n", fp8, bf16);
    EXPECT_GE(fp8, 5 * bf16);
    EXPECT_GT(bf16, 0.0);
}

}  // namespace
}  // namespace plab
