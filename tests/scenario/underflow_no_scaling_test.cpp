// underflow-no-scaling: the FP32 twin's weight gradients start far below
// FP16's reach; without a loss scaler the FP16 run gets no signal and stays at
// chance, with a dynamic scaler it reaches its twin. The flush share is
// counted here element by element (|x| <= 2^-25 rounds to zero in FP16),
// independently of the telemetry's range fractions the check uses.
#include "scenario/scenario_test_util.h"

#include <algorithm>
#include <cmath>

#include "engine/scenario/scenario_checks.h"

namespace plab {
namespace {

TEST(ScenarioUnderflowNoScaling, VerdictsHold) {
    CpuBackend backend;
    scenario_test::expect_all_hold(check_underflow_no_scaling(backend, {}), "underflow-no-scaling");
}

TEST(ScenarioUnderflowNoScaling, FlushShareAndAccuracyFromRecords) {
    const RunConfig config = load_preset("underflow-no-scaling");
    ASSERT_EQ(config.precision.recipe, Recipe::amp_fp16);
    ASSERT_EQ(config.scaler.kind, ScalerKind::none);

    CpuBackend backend;
    Trainer trainer(backend, config);
    std::vector<scenario_test::FlushTally> layers;
    StepRecord last;
    for (int s = 0; s < config.steps; ++s) {
        last = trainer.step();
        const Mlp& twin = *trainer.twin();
        layers.resize(static_cast<std::size_t>(twin.layer_count()));
        for (int i = 0; i < twin.layer_count(); ++i)
            layers[static_cast<std::size_t>(i)].add(backend, twin.linears()[static_cast<std::size_t>(i)].weight.master_grad);
    }
    const auto worst = std::max_element(layers.begin(), layers.end(),
                                        [](const auto& a, const auto& b) { return a.share() < b.share(); });
    std::printf("[ measured ] worst layer fc%d: %.4f of non-zero twin weight grads <= 2^-25; acc %.4f twin %.4f\n",
                static_cast<int>(worst - layers.begin()) + 1, worst->share(), *last.acc, *last.acc_ref);
    EXPECT_GE(worst->share(), 0.30);
    ASSERT_TRUE(last.acc && last.acc_ref);
    EXPECT_GE(*last.acc_ref - *last.acc, 0.05f);

    const std::vector<StepRecord> scaled = scenario_test::train_records(config.name, {"scaler.kind=dynamic"});
    ASSERT_TRUE(scaled.back().acc && scaled.back().acc_ref);
    std::printf("[ measured ] scaler.kind=dynamic: acc %.4f twin %.4f\n", *scaled.back().acc, *scaled.back().acc_ref);
    EXPECT_LE(std::fabs(*scaled.back().acc_ref - *scaled.back().acc), 0.005f);
    // The twin is the same FP32 run whatever the mixed side does.
    EXPECT_EQ(*scaled.back().acc_ref, *last.acc_ref);
}

}  // namespace
}  // namespace plab
