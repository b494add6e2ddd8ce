// tiny-gpt-attention-overflow: with the softmax in FP16 the loss turns NaN
// once the scaled logits pass 65504 and stays NaN (skipped steps), while the
// FP32 twin, with the same logit scale, stays finite.
#include "scenario/scenario_test_util.h"

#include <cmath>

#include "engine/scenario/scenario_checks.h"

namespace plab {
namespace {

TEST(ScenarioTinyGptAttentionOverflow, VerdictsHold) {
    CpuBackend backend;
    scenario_test::expect_all_hold(check_tiny_gpt_attention_overflow(backend, {}), "tiny-gpt-attention-overflow");
}

TEST(ScenarioTinyGptAttentionOverflow, TheLossTurnsNanAndStaysWhileTheTwinsStaysFinite) {
    const std::vector<StepRecord> records = scenario_test::train_records("tiny-gpt-attention-overflow", {});
    std::int64_t first_nan = 0;
    int nan_after = 0, skipped_after = 0, twin_bad = 0;
    for (const StepRecord& r : records) {
        twin_bad += !std::isfinite(r.loss_ref);
        if (!first_nan && !std::isfinite(r.loss)) first_nan = r.step;
        if (!first_nan) continue;
        nan_after += !std::isfinite(r.loss);
        skipped_after += r.skipped;
    }
    const auto after = static_cast<int>(records.size()) - static_cast<int>(first_nan) + 1;
    std::printf("[ measured ] first NaN loss at step %lld, then %d of %d NaN, %d skipped; twin non-finite %d\n",
                static_cast<long long>(first_nan), nan_after, after, skipped_after, twin_bad);
    EXPECT_GT(first_nan, 1);  // the scores start small: the first steps are finite
    EXPECT_GE(nan_after, (4 * after) / 5);
    EXPECT_GE(skipped_after, (4 * after) / 5);
    EXPECT_EQ(twin_bad, 0);
    EXPECT_TRUE(std::isfinite(records.back().loss_ref));
}

}  // namespace
}  // namespace plab
