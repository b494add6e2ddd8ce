// The scaler replayed on recorded steps: the overflow boundary taken
// exactly, each kind of predicted overflow, and a record's own settings
// giving back the trajectory LossScaler took.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/amp/scaler_replay.h"

namespace plab {
namespace {

ScalerConfig dynamic(float init, int interval) {
    ScalerConfig c;
    c.kind = ScalerKind::dynamic;
    c.init_scale = init;
    c.growth_interval = interval;
    return c;
}

// FP16's boundary: 65520 rounds to Inf (round half to even from 65504).
constexpr double kFp16Overflow = 65520.0;

TEST(ScalerReplay, TheOverflowBoundaryIsTakenExactly) {
    // amax * 1024 lands exactly on 65520, or one FP32 step below it.
    const float at = 65520.0f / 1024.0f, below = std::nextafter(at, 0.0f);
    const auto on = replay_scaler({{1, 1024, false, at, false}}, dynamic(1024, 1000), kFp16Overflow, true);
    EXPECT_EQ(on[0].overflow, OverflowKind::scale);
    EXPECT_TRUE(on[0].event.skipped && on[0].event.backoff);
    EXPECT_EQ(on[0].event.scale_after, 512.0f);
    const auto under = replay_scaler({{1, 1024, false, below, false}}, dynamic(1024, 1000), kFp16Overflow, true);
    EXPECT_EQ(under[0].overflow, OverflowKind::none);
    EXPECT_FALSE(under[0].event.skipped);
    // A boundary that is not reached inclusively (E4M3's 464) lets the value on it through.
    const auto exclusive = replay_scaler({{1, 1024, false, at, false}}, dynamic(1024, 1000), kFp16Overflow, false);
    EXPECT_EQ(exclusive[0].overflow, OverflowKind::none);
}

TEST(ScalerReplay, RecordedOverflowsRecurAtLargerScalesAndUnexplainedOnesAtAny) {
    // Step 1 overflowed at 2^16 (its finite amax says nothing), step 2 had a forward NaN.
    const std::vector<RecordedScaleStep> steps = {{1, 65536, true, 0.001f, false}, {2, 32768, true, 0.001f, true}};
    const auto higher = replay_scaler(steps, dynamic(131072, 1000), kFp16Overflow, true);
    EXPECT_EQ(higher[0].overflow, OverflowKind::scale);
    EXPECT_EQ(higher[1].overflow, OverflowKind::unscaled);
    const auto lower = replay_scaler(steps, dynamic(1024, 1000), kFp16Overflow, true);
    EXPECT_EQ(lower[0].overflow, OverflowKind::none);
    EXPECT_FALSE(lower[0].event.skipped);
    EXPECT_EQ(lower[1].overflow, OverflowKind::unscaled);
    EXPECT_TRUE(lower[1].event.skipped);
    EXPECT_STREQ(overflow_kind_name(OverflowKind::unscaled), "unscaled");
}

TEST(ScalerReplay, ARecordsOwnSettingsGiveItsOwnTrajectory) {
    // A trajectory made by LossScaler itself, with clean steps' amax as large as their scale allowed.
    const ScalerConfig config = dynamic(4096, 3);
    LossScaler scaler(config);
    std::vector<RecordedScaleStep> steps;
    std::vector<ScalerEvent> events;
    for (int t = 1; t <= 60; ++t) {
        const bool overflow = t % 7 == 0 || t == 20;
        const float scale = scaler.scale();
        steps.push_back({t, scale, overflow, overflow ? 1.0f : 65504.0f / scale, false});
        events.push_back(scaler.update(overflow));
    }
    const auto out = replay_scaler(steps, config, kFp16Overflow, true);
    ASSERT_EQ(out.size(), events.size());
    for (std::size_t i = 0; i < out.size(); ++i) {
        EXPECT_EQ(out[i].event.scale_before, events[i].scale_before) << "step " << i + 1;
        EXPECT_EQ(out[i].event.scale_after, events[i].scale_after) << "step " << i + 1;
        EXPECT_EQ(out[i].event.found_inf, events[i].found_inf) << "step " << i + 1;
        EXPECT_EQ(out[i].event.growth_tracker_after, events[i].growth_tracker_after) << "step " << i + 1;
    }
}

TEST(ScalerReplay, FlushSharesMoveWithTheScale) {
    Log2Histogram h;
    const auto bin_of = [](int log2) { return static_cast<std::size_t>((log2 - Log2Histogram::kLowExponent) * 4); };
    h.bins[bin_of(-30)] = 10;  // values in [2^-30, 2^-29.75)
    h.bins[bin_of(-20)] = 30;
    h.bins[bin_of(-10)] = 60;
    h.zeros = 7;  // zeros are no one's share
    // FP16: below 2^-25 rounds to zero, below 2^-14 (less half a subnormal step) to a subnormal.
    const double nonzero = std::ldexp(1.0, -25), normal = std::ldexp(1.0, -14) - std::ldexp(1.0, -25);
    const FlushShares at1 = scaled_flush_shares(h, 1.0, nonzero, normal);
    EXPECT_EQ(at1.values, 100);
    EXPECT_DOUBLE_EQ(at1.flush, 0.1);
    EXPECT_DOUBLE_EQ(at1.subnormal, 0.3);
    const FlushShares at1024 = scaled_flush_shares(h, 1024.0, nonzero, normal);  // 2^-30 -> 2^-20, 2^-20 -> 2^-10
    EXPECT_DOUBLE_EQ(at1024.flush, 0.0);
    EXPECT_DOUBLE_EQ(at1024.subnormal, 0.1);
}

}  // namespace
}  // namespace plab
