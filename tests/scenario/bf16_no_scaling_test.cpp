// bf16-no-scaling: the underflow-no-scaling model in AMP BF16 without a
// scaler. Counted here element by element: BF16 rounds to zero only below
// 2^-134 (half its smallest subnormal), FP16 below 2^-25.
#include "scenario/scenario_test_util.h"

#include <cmath>

#include "engine/scenario/scenario_checks.h"

namespace plab {
namespace {

TEST(ScenarioBf16NoScaling, VerdictsHold) {
    CpuBackend backend;
    scenario_test::expect_all_hold(check_bf16_no_scaling(backend, {}), "bf16-no-scaling");
}

TEST(ScenarioBf16NoScaling, SameModelAsTheFp16Scenario) {
    RunConfig bf16 = load_preset("bf16-no-scaling");
    RunConfig fp16 = load_preset("underflow-no-scaling");
    EXPECT_EQ(bf16.precision.recipe, Recipe::amp_bf16);
    EXPECT_EQ(bf16.scaler.kind, ScalerKind::none);
    // Everything but the names, texts and the recipe is the same preset.
    bf16.name = fp16.name;
    bf16.description = fp16.description;
    bf16.guide = fp16.guide;
    bf16.precision.recipe = fp16.precision.recipe;
    EXPECT_EQ(run_config_to_json(bf16), run_config_to_json(fp16));
}

TEST(ScenarioBf16NoScaling, NoTwinGradientFlushesInBf16) {
    const RunConfig config = load_preset("bf16-no-scaling");
    CpuBackend backend;
    Trainer trainer(backend, config);
    scenario_test::FlushTally bf16{std::ldexp(1.0f, -134)}, fp16;
    StepRecord last;
    for (int s = 0; s < config.steps; ++s) {
        last = trainer.step();
        for (const Linear& linear : trainer.twin()->linears()) {
            bf16.add(backend, linear.weight.master_grad);
            fp16.add(backend, linear.weight.master_grad);
        }
    }
    std::printf("[ measured ] of %.0f non-zero twin weight grads: %.0f flush in BF16, %.0f in FP16; acc %.4f twin %.4f\n",
                bf16.nonzero, bf16.flushed, fp16.flushed, *last.acc, *last.acc_ref);
    EXPECT_EQ(bf16.flushed, 0.0);
    EXPECT_GE(fp16.share(), 0.05);  // the same values FP16 cannot hold
    ASSERT_TRUE(last.acc && last.acc_ref);
    EXPECT_LE(std::fabs(*last.acc_ref - *last.acc), 0.005f);
}

}  // namespace
}  // namespace plab
