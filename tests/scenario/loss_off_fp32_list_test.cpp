// loss-off-fp32-list: the verdicts, and the Inf losses predicted from the
// twin's own: a step's loss overflows in FP16 when its rows' losses, which
// the twin's mean times the batch approximates, sum past 65504, and is
// finite well below it.
#include "scenario/scenario_test_util.h"

#include "engine/scenario/scenario_checks.h"

namespace plab {
namespace {

TEST(ScenarioLossOffFp32List, VerdictsHold) {
    CpuBackend backend;
    scenario_test::expect_all_hold(check_loss_off_fp32_list(backend, {}), "loss-off-fp32-list");
}

TEST(ScenarioLossOffFp32List, InfExactlyWhereTheTwinsSumPasses65504) {
    const std::vector<StepRecord> r =
        scenario_test::train_records("loss-off-fp32-list", {"telemetry.hist_every=0", "steps=40"});
    const double batch = load_preset("loss-off-fp32-list").batch_size;
    int predicted_inf = 0, predicted_finite = 0;
    for (const StepRecord& s : r) {
        const double sum = s.loss_ref * batch;  // the twin's rows, summed exactly
        SCOPED_TRACE("step " + std::to_string(s.step) + ", twin's sum " + std::to_string(sum));
        // Clear of the boundary: past 32768 FP16's partial sums round each
        // term to a multiple of 32, which here adds about a tenth to the sum.
        if (sum > 1.05 * 65504) {
            EXPECT_TRUE(std::isinf(s.loss));
            ++predicted_inf;
        } else if (sum < 0.75 * 65504) {
            EXPECT_TRUE(std::isfinite(s.loss));
            ++predicted_finite;
        }
    }
    EXPECT_GE(predicted_inf, 5);
    EXPECT_GE(predicted_finite, 5);
}

}  // namespace
}  // namespace plab
