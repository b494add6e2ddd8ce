// fp16-accumulate: a long sum of small terms in FP16 stalls, and a step whose
// matmuls sum in FP16 lands further from its twin. The stall is measured
// again with the compiler's _Float16 arithmetic, the step from records of
// this test's own runs.
#include "scenario/scenario_test_util.h"

#include <string>
#include <vector>

#include "engine/scenario/scenario_checks.h"

namespace plab {
namespace {

TEST(ScenarioFp16Accumulate, VerdictsHold) {
    CpuBackend backend;
    scenario_test::expect_all_hold(check_fp16_accumulate(backend, {}), "fp16-accumulate");
}

// 4096 terms of 0.1 x 0.1 (FP16 inputs) summed in a _Float16: the sum climbs
// to 32, where FP16's spacing is 2^-5 and a term of about 0.01 is under half
// of it, and stays there, more than 10% under the true 40.94.
TEST(ScenarioFp16Accumulate, TheSumStallsWhereATermIsUnderHalfAnUlp) {
    const float factor = static_cast<_Float16>(0.1f);
    _Float16 sum = 0;
    for (int i = 0; i < 4096; ++i) sum = static_cast<_Float16>(static_cast<float>(sum) + factor * factor);
    EXPECT_EQ(static_cast<float>(sum), 32.0f);
    const double exact = 4096.0 * factor * factor;
    EXPECT_GT((exact - 32.0) / exact, 0.1);
    EXPECT_LT(static_cast<double>(factor) * factor, 0x1p-5 / 2);  // under half of the ULP at 32
    EXPECT_GT(static_cast<double>(factor) * factor, 0x1p-6 / 2);  // but not below 32: the sum reaches it
}

// The last layer's weight gradient against the twin's after one step, the
// same weights and batch on both sides: FP16 sums of 1024 products each
// land it several times further away. The scenario asks for 3x.
double first_step_gradient_distance(const std::string& accumulate) {
    const std::vector<StepRecord> records = scenario_test::train_records(
        "fp16-accumulate", {"telemetry.hist_every=0", "steps=1", "precision.accumulate=" + accumulate});
    return records.at(0).layers.back().grad_rel_dist;
}

TEST(ScenarioFp16Accumulate, Fp16SumsPutTheFirstGradientFurtherFromTheTwin) {
    const double fp16 = first_step_gradient_distance("fp16"), fp32 = first_step_gradient_distance("fp32");
    std::printf("step 1, last layer's gradient from the twin's: FP16 sums %g, FP32 sums %g\n", fp16, fp32);
    EXPECT_GT(fp32, 0.0);
    EXPECT_GE(fp16, 3 * fp32);
}

}  // namespace
}  // namespace plab
