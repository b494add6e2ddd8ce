// pure-fp16-lost-updates: FP16 weights without master weights lose nearly
// every SGD update late in the run and the loss stalls while its FP32 twin's
// falls; FP32 master weights keep every update and the run follows the twin.
#include "scenario/scenario_test_util.h"

#include <cmath>

#include "engine/scenario/scenario_checks.h"

namespace plab {
namespace {

// Mean of one field over quarter q (0..3) of the records, summed here.
template <typename Field>
double quarter_mean(const std::vector<StepRecord>& records, std::size_t q, Field field) {
    const std::size_t quarter = records.size() / 4;
    const std::size_t first = records.size() - (4 - q) * quarter;
    double sum = 0;
    for (std::size_t i = first; i < first + quarter; ++i) sum += static_cast<double>(records[i].*field);
    return sum / static_cast<double>(quarter);
}
template <typename Field>
double late_quarter_mean(const std::vector<StepRecord>& records, Field field) {
    return quarter_mean(records, 3, field);
}

TEST(ScenarioPureFp16LostUpdates, VerdictsHold) {
    CpuBackend backend;
    scenario_test::expect_all_hold(check_pure_fp16_lost_updates(backend, {}), "pure-fp16-lost-updates");
}

TEST(ScenarioPureFp16LostUpdates, LostUpdatesAndTheStallFromRecords) {
    const RunConfig config = load_preset("pure-fp16-lost-updates");
    ASSERT_EQ(config.precision.recipe, Recipe::fp16_pure);
    ASSERT_FALSE(config.precision.master_weights);
    ASSERT_EQ(config.optimizer.kind, OptimizerKind::sgd);

    const std::vector<StepRecord> bare = scenario_test::train_records(config.name, {});
    const std::vector<StepRecord> master = scenario_test::train_records(config.name, {"precision.master_weights=true"});
    ASSERT_EQ(bare.size(), static_cast<std::size_t>(config.steps));
    ASSERT_EQ(master.size(), bare.size());

    const double lost = late_quarter_mean(bare, &StepRecord::lost_update_frac);
    const double fall = quarter_mean(bare, 2, &StepRecord::loss) - quarter_mean(bare, 3, &StepRecord::loss);
    const double twin_fall = quarter_mean(bare, 2, &StepRecord::loss_ref) - quarter_mean(bare, 3, &StepRecord::loss_ref);
    const double master_ratio =
        late_quarter_mean(master, &StepRecord::loss) / late_quarter_mean(master, &StepRecord::loss_ref);
    std::printf("[ measured ] no master: lost %.3f, loss falls %.4f vs twin %.4f from quarter 3 to 4; master: %.3fx\n",
                lost, fall, twin_fall, master_ratio);
    EXPECT_GE(lost, 0.5);
    EXPECT_GT(twin_fall, 0.05);  // the twin still learns
    EXPECT_LE(fall, 0.25 * twin_fall);  // the run has stalled
    EXPECT_LE(master_ratio, 1.1);
    // FP32 master weights take every update, and both runs' twins are the same FP32 run.
    for (std::size_t i = 0; i < master.size(); ++i) {
        ASSERT_EQ(master[i].lost_update_frac, 0.0f) << "step " << master[i].step;
        ASSERT_EQ(master[i].loss_ref, bare[i].loss_ref) << "step " << master[i].step;
        ASSERT_TRUE(std::isfinite(bare[i].loss)) << "step " << bare[i].step;
    }
}

}  // namespace
}  // namespace plab
