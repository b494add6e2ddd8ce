// clip-before-unscale: clipping the scaled gradients stalls training;
// clipping after the unscale trains like the twin.
#include "scenario/scenario_test_util.h"

#include "engine/scenario/scenario_checks.h"

namespace plab {
namespace {

TEST(ScenarioClipBeforeUnscale, VerdictsHold) {
    CpuBackend backend;
    scenario_test::expect_all_hold(check_clip_before_unscale(backend, {}), "clip-before-unscale");
}

double mean_loss(const std::vector<StepRecord>& records, std::size_t first, std::size_t last) {
    double sum = 0;
    for (std::size_t i = first; i < last; ++i) sum += records[i].loss;
    return sum / static_cast<double>(last - first);
}

TEST(ScenarioClipBeforeUnscale, RecordsStallWithTheBugAndTrainWithout) {
    const std::vector<StepRecord> bug = scenario_test::train_records("clip-before-unscale", {});
    const std::vector<StepRecord> fixed =
        scenario_test::train_records("clip-before-unscale", {"optimizer.clip_scaled=false"});
    ASSERT_EQ(bug.size(), fixed.size());
    int clipped = 0;
    for (const StepRecord& r : bug) {
        clipped += r.clipped;
        EXPECT_FALSE(r.skipped) << "step " << r.step;
    }
    const std::size_t n = bug.size(), quarter = n / 4;
    const double bug_first = mean_loss(bug, 0, 10), bug_late = mean_loss(bug, n - quarter, n);
    const double fixed_late = mean_loss(fixed, n - quarter, n);
    std::printf("[ measured ] clipped %d/%zu; loss first 10 %.4f, last quarter %.4f (fixed %.4f); acc bug %.4f "
                "fixed %.4f twin %.4f\n",
                clipped, n, bug_first, bug_late, fixed_late, static_cast<double>(*bug.back().acc),
                static_cast<double>(*fixed.back().acc), static_cast<double>(*bug.back().acc_ref));
    EXPECT_EQ(clipped, static_cast<int>(n));  // at scale 2^16 the scaled norm always exceeds 1
    EXPECT_GT(bug_late, 0.95 * bug_first);   // stalled
    EXPECT_LT(fixed_late, 0.5 * bug_late);   // trained
    EXPECT_GE(*bug.back().acc_ref - *bug.back().acc, 0.2f);
    EXPECT_LE(std::fabs(*fixed.back().acc_ref - *fixed.back().acc), 0.02f);
}

}  // namespace
}  // namespace plab
