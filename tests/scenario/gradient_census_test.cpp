// gradient-census: the share of the FP32 twin's non-zero values that FP16
// rounds to zero (|x| <= 2^-25, ties to even), and of all values the exact
// zeros, counted here element by element from downloaded tensors,
// independently of the telemetry's range fractions.
#include "scenario/scenario_test_util.h"

#include <cmath>

#include "engine/scenario/scenario_checks.h"

namespace plab {
namespace {

TEST(ScenarioGradientCensus, VerdictsHold) {
    CpuBackend backend;
    scenario_test::expect_all_hold(check_gradient_census(backend, {}), "gradient-census");
}

TEST(ScenarioGradientCensus, BruteForceCountOfTheTwinsValues) {
    const RunConfig config = load_preset("gradient-census");
    CpuBackend backend;
    Trainer trainer(backend, config);
    scenario_test::FlushTally act_grads, weights;
    for (int s = 0; s < config.steps; ++s) {
        const StepRecord r = trainer.step();
        const Mlp& twin = *trainer.twin();
        for (int i = 0; i < twin.layer_count(); ++i) {
            weights.add(backend, twin.linears()[static_cast<std::size_t>(i)].weight.value);
            if (!r.acc) act_grads.add(backend, twin.activation_grad(i));  // evaluation overwrites the pass
        }
    }
    std::printf("[ measured ] FP16 flush share: activation grads %.4f, weights %.6f; of all activation grads "
                "%.4f exact zeros + %.4f flushed\n",
                act_grads.share(), weights.share(), act_grads.zero_share(), act_grads.flushed_of_all());
    EXPECT_GE(act_grads.share(), 0.25);
    EXPECT_LE(weights.share(), 0.0001);
    EXPECT_GE(act_grads.zero_share() + act_grads.flushed_of_all(), 0.5);  // the zero bin of ReLU's gradients
}

}  // namespace
}  // namespace plab
