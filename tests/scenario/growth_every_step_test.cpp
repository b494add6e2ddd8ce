// growth-every-step: with growth_interval 1 every step either grows the scale
// (clean) or skips and backs off (overflow), so the scale is the initial one
// times 2^(growths - backoffs) at every step; about half the steps skip.
#include "scenario/scenario_test_util.h"

#include <cmath>

#include "engine/scenario/scenario_checks.h"

namespace plab {
namespace {

TEST(ScenarioGrowthEveryStep, VerdictsHold) {
    CpuBackend backend;
    scenario_test::expect_all_hold(check_growth_every_step(backend, {}), "growth-every-step");
}

TEST(ScenarioGrowthEveryStep, EveryStepGrowsOrBacksOff) {
    const RunConfig config = load_preset("growth-every-step");
    const std::vector<StepRecord> records = scenario_test::train_records("growth-every-step", {});
    int growths = 0, backoffs = 0;
    for (const StepRecord& r : records) {
        EXPECT_NE(r.growth, r.skipped) << "step " << r.step << ": neither or both";
        EXPECT_EQ(r.backoff, r.skipped) << "step " << r.step;
        growths += r.growth;
        backoffs += r.backoff;
        EXPECT_EQ(r.scale_after, std::ldexp(config.scaler.init_scale, growths - backoffs)) << "step " << r.step;
    }
    std::printf("[ measured ] %d growths, %d backoffs in %zu steps\n", growths, backoffs, records.size());
    EXPECT_GE(backoffs, static_cast<int>(records.size()) * 2 / 5);
}

}  // namespace
}  // namespace plab
