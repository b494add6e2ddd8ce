// scaler-sawtooth: overflow / backoff / growth cycles, every overflow one skipped step.
#include "scenario/scenario_test_util.h"

#include "engine/scenario/scenario_checks.h"

namespace plab {
namespace {

TEST(ScenarioScalerSawtooth, VerdictsHold) {
    CpuBackend backend;
    scenario_test::expect_all_hold(check_scaler_sawtooth(backend, {}), "scaler-sawtooth");
}

TEST(ScenarioScalerSawtooth, RecordsSawWithinSixHundredSteps) {
    const std::vector<StepRecord> records = scenario_test::train_records("scaler-sawtooth", {});
    ASSERT_EQ(records.size(), 600u);
    int found_inf = 0, skipped = 0, backoffs = 0, growths = 0;
    for (const StepRecord& r : records) {
        found_inf += r.found_inf;
        skipped += r.skipped;
        backoffs += r.backoff;
        growths += r.growth;
        EXPECT_EQ(r.skipped, r.found_inf) << "step " << r.step;  // a dynamic scaler skips exactly the overflow steps
    }
    std::printf("[ measured ] found_inf %d, skipped %d, backoffs %d, growths %d, acc %.4f (twin %.4f)\n", found_inf,
                skipped, backoffs, growths, static_cast<double>(*records.back().acc),
                static_cast<double>(*records.back().acc_ref));
    EXPECT_EQ(skipped, found_inf);
    EXPECT_GE(backoffs, 3);
    EXPECT_GE(growths, 3);
    // Saw teeth: at least three growths each undone by a backoff before the
    // scale grows again (the backoffs of the first descent do not count).
    std::vector<std::int64_t> teeth;
    std::int64_t last_growth = -1;
    for (const StepRecord& r : records) {
        if (r.growth) last_growth = r.step;
        if (r.backoff && last_growth >= 0) {
            teeth.push_back(last_growth);
            last_growth = -1;
        }
    }
    EXPECT_GE(teeth.size(), 3u);
}

}  // namespace
}  // namespace plab
