// grad-accumulation: 4 micro-batches, one finite check and one scaler update
// per optimizer step. The records' scales are replayed against the PyTorch
// rule (docs/DESIGN.md, "Loss scaler") applied once per optimizer step.
#include "scenario/scenario_test_util.h"

#include "engine/scenario/scenario_checks.h"

namespace plab {
namespace {

TEST(ScenarioGradAccumulation, VerdictsHold) {
    CpuBackend backend;
    scenario_test::expect_all_hold(check_grad_accumulation(backend, {}), "grad-accumulation");
}

TEST(ScenarioGradAccumulation, ScaleFollowsOneUpdatePerOptimizerStep) {
    const RunConfig config = load_preset("grad-accumulation");
    ASSERT_EQ(config.optimizer.accumulation, 4);
    ASSERT_EQ(config.scaler.kind, ScalerKind::dynamic);
    const std::vector<StepRecord> records = scenario_test::train_records("grad-accumulation", {});
    float scale = 1048576.0f;  // 2^20, the preset's init_scale
    int tracker = 0, overflows = 0, growths = 0;
    for (const StepRecord& r : records) {
        ASSERT_EQ(r.scale, scale) << "step " << r.step;
        EXPECT_EQ(r.skipped, r.found_inf) << "step " << r.step;
        if (r.found_inf) {
            ++overflows;
            scale *= 0.5f;
            tracker = 0;
        } else if (++tracker == 25) {
            ++growths;
            scale *= 2.0f;
            tracker = 0;
        }
        EXPECT_EQ(r.growth_tracker, tracker) << "step " << r.step;
    }
    std::printf("[ measured ] %d overflow steps, %d growths, acc %.4f (twin %.4f)\n", overflows, growths,
                static_cast<double>(*records.back().acc), static_cast<double>(*records.back().acc_ref));
    EXPECT_GE(overflows, 5);
    EXPECT_GE(growths, 5);
    EXPECT_NEAR(*records.back().acc, *records.back().acc_ref, 0.01f);
}

}  // namespace
}  // namespace plab
