// growth-interval-tradeoff: two forks from one checkpoint after the scale
// dropped; the short growth interval recovers sooner and skips more.
#include "scenario/scenario_test_util.h"

#include <cmath>
#include <memory>

#include "engine/scenario/scenario_checks.h"

namespace plab {
namespace {

TEST(ScenarioGrowthIntervalTradeoff, VerdictsHold) {
    CpuBackend backend;
    scenario_test::expect_all_hold(check_growth_interval_tradeoff(backend, {}), "growth-interval-tradeoff");
}

struct Fork {
    std::int64_t recovered_at = -1;
    int skipped = 0, growths = 0;
};

// Every fork step from the checkpoint, the scale dropped to 2^8.
Fork fork_from(const Trainer& checkpoint, int interval, float target, int steps) {
    std::unique_ptr<Run> fork = checkpoint.clone();
    fork->apply("scaler.scale=256");
    fork->apply("scaler.growth_interval=" + std::to_string(interval));
    Fork f;
    for (int i = 0; i < steps; ++i) {
        const StepRecord r = fork->step();
        if (f.recovered_at < 0 && r.scale >= target) f.recovered_at = r.step;
        f.skipped += r.skipped;
        f.growths += r.growth;
        EXPECT_EQ(r.skipped, r.found_inf) << "step " << r.step;
    }
    return f;
}

TEST(ScenarioGrowthIntervalTradeoff, ForksCountRecoveryAndSkips) {
    const RunConfig config = load_preset("growth-interval-tradeoff");
    CpuBackend backend;
    Trainer main(backend, config);
    for (int i = 0; i < 100; ++i) main.step();
    const float target = main.scaler().scale();
    const Fork slow = fork_from(main, 2000, target, config.steps - 100);
    const Fork fast = fork_from(main, 50, target, config.steps - 100);
    std::printf("[ measured ] checkpoint scale %g; interval 2000: recovered at %lld, skipped %d, growths %d; "
                "interval 50: recovered at %lld, skipped %d, growths %d\n",
                static_cast<double>(target), static_cast<long long>(slow.recovered_at), slow.skipped, slow.growths,
                static_cast<long long>(fast.recovered_at), fast.skipped, fast.growths);
    EXPECT_EQ(slow.recovered_at, -1);
    EXPECT_EQ(slow.growths, 0);
    ASSERT_GT(fast.recovered_at, 100);
    // From 2^8 back to the checkpoint's scale, k = log2(target / 2^8) doublings:
    // the checkpoint's growth tracker (100 clean steps) already passes 50, so
    // the first comes on the fork's first step (101), then one per 50 clean
    // steps; the scale shows in the record of the step after the growth.
    const auto doublings = static_cast<std::int64_t>(std::log2(target / 256.0f));
    EXPECT_GE(fast.recovered_at, 100 + 1 + 50 * (doublings - 1) + 1);
    EXPECT_GT(fast.skipped, slow.skipped);
}

}  // namespace
}  // namespace plab
