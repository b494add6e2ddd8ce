// Steady axis ranges: kept while the data fits, else made anew with headroom
// rounded out to a 1-2-5 step. Expected ranges worked out by hand.
#include "ui/present/steady_axis.h"

#include <gtest/gtest.h>

#include <vector>

#include "ui/present/axis_ticks.h"

namespace plab {
namespace {

TEST(TickRung, AtOrBelowPicksTheLargestOneTwoFiveStepNotAbove) {
    EXPECT_DOUBLE_EQ(rung_at_or_below(1717.1).value(), 1000);
    EXPECT_DOUBLE_EQ(rung_at_or_below(80).value(), 50);
    EXPECT_DOUBLE_EQ(rung_at_or_below(30).value(), 20);
    EXPECT_DOUBLE_EQ(rung_at_or_below(2).value(), 2);
    EXPECT_DOUBLE_EQ(rung_at_or_below(9.99).value(), 5);
    EXPECT_DOUBLE_EQ(rung_at_or_below(0.19).value(), 0.1);
    EXPECT_DOUBLE_EQ(rung_at_or_below(0.0045).value(), 0.002);
}

TEST(TickRung, NextClimbsOneTwoFiveThroughTheDecades) {
    TickRung rung = rung_at_or_below(0.2);
    std::vector<double> climbed;
    for (int i = 0; i < 7; ++i, rung = rung.next()) climbed.push_back(rung.value());
    EXPECT_EQ(climbed, (std::vector<double>{0.2, 0.5, 1, 2, 5, 10, 20}));
    EXPECT_EQ(rung.multiplier, 5);
    EXPECT_EQ(rung.decade, 10);
}

TEST(SteadySpan, FirstRangeTakesHeadroomRoundedUp) {
    // Steps 0..17171: headroom 1717.1, grain 1000, 18888.1 rounded up to 19000.
    const AxisSpan s = steady_span({0, 17171}, std::nullopt, SteadyRule{});
    EXPECT_DOUBLE_EQ(s.lo, 0);  // the fixed end stays the data's
    EXPECT_DOUBLE_EQ(s.hi, 19000);
}

TEST(SteadySpan, KeptWhileTheDataGrowsInsideIt) {
    const SteadyRule rule;
    const AxisSpan shown{0, 19000};
    for (double step : {17172.0, 18000.0, 19000.0}) {
        const AxisSpan s = steady_span({0, step}, shown, rule);
        EXPECT_EQ(s, shown) << "at step " << step;
    }
    // One step past the end: 19001 + 1900.1 = 20901.1, grain 1000 -> 21000.
    const AxisSpan next = steady_span({0, 19001}, shown, rule);
    EXPECT_DOUBLE_EQ(next.lo, 0);
    EXPECT_DOUBLE_EQ(next.hi, 21000);
}

TEST(SteadySpan, FixedEndThatMovesTakesANewRange) {
    // A fork's log starts at step 100: the low end is no longer 0.
    // Span 800, headroom 80, grain 50: 980 rounded up to 1000.
    const AxisSpan s = steady_span({100, 900}, AxisSpan{0, 1000}, SteadyRule{});
    EXPECT_DOUBLE_EQ(s.lo, 100);
    EXPECT_DOUBLE_EQ(s.hi, 1000);
}

TEST(SteadySpan, DataFillingTooLittleTakesANewRange) {
    // 300 of 1000 is under half: after a reset the axis shrinks to the data.
    // Headroom 30, grain 20: 330 rounded up to 340.
    const AxisSpan s = steady_span({0, 300}, AxisSpan{0, 1000}, SteadyRule{});
    EXPECT_DOUBLE_EQ(s.lo, 0);
    EXPECT_DOUBLE_EQ(s.hi, 340);
    // 500 of 1000 is just enough.
    EXPECT_EQ(steady_span({0, 500}, AxisSpan{0, 1000}, SteadyRule{}), (AxisSpan{0, 1000}));
}

TEST(SteadySpan, BothEndsFreeRoundOutward) {
    // log10 of a loss between 10^-2.3 and 10^-0.4: span 1.9, headroom 0.19,
    // grain 0.1: -2.49 down to -2.5, -0.21 up to -0.2.
    SteadyRule rule;
    rule.lo_free = true;
    const AxisSpan s = steady_span({-2.3, -0.4}, std::nullopt, rule);
    EXPECT_NEAR(s.lo, -2.5, 1e-12);
    EXPECT_NEAR(s.hi, -0.2, 1e-12);
    // The loss falls below the range: a new one.
    const AxisSpan lower = steady_span({-2.6, -0.4}, s, rule);
    EXPECT_NEAR(lower.lo, -3.0, 1e-12);  // span 2.2, headroom 0.22, grain 0.2: -2.82 down to -3.0
    EXPECT_NEAR(lower.hi, 0.0, 1e-12);   // -0.18 up to 0
}

TEST(SteadySpan, ExactWhenThereIsNoSpan) {
    EXPECT_EQ(steady_span({3, 3}, std::nullopt, SteadyRule{}), (AxisSpan{3, 3}));
    SteadyRule none;
    none.headroom = 0;
    EXPECT_EQ(steady_span({0, 17171}, AxisSpan{0, 20000}, none), (AxisSpan{0, 17171}));
}

TEST(SteadyAxis, HoldsTheHighOfItsLastUpdatesThenShrinks) {
    // A histogram's top: the low end fixed at 0, at least 60% filled, the last three updates counted.
    SteadyAxis axis(SteadyRule{false, true, 0.1, 0.6, 2});
    // 0.05: headroom 0.005, grain 0.005, 0.055 -> [0, 0.055].
    const AxisSpan first = axis.next({0, 0.05});
    EXPECT_DOUBLE_EQ(first.hi, 0.055);
    EXPECT_EQ(axis.next({0, 0.04}), first);  // the last three reach 0.05
    EXPECT_EQ(axis.next({0, 0.02}), first);  // still 0.05
    EXPECT_EQ(axis.next({0, 0.03}), first);  // 0.04, 0.02, 0.03: 0.04 fills 73%
    // 0.02, 0.03, 0.02: 0.03 fills 55%: headroom 0.003, grain 0.002, 0.033 -> 0.034.
    const AxisSpan shrunk = axis.next({0, 0.02});
    EXPECT_DOUBLE_EQ(shrunk.lo, 0);
    EXPECT_DOUBLE_EQ(shrunk.hi, 0.034);
    EXPECT_EQ(axis.next({0, 0.02}), shrunk);  // 0.03, 0.02, 0.02: 88%
    // 0.02 alone: 59%: headroom 0.002, grain 0.002, 0.022.
    EXPECT_DOUBLE_EQ(axis.next({0, 0.02}).hi, 0.022);
}

TEST(SteadyAxis, NoisyDataKeepsTheRangeOfItsRecentHigh) {
    SteadyAxis axis(SteadyRule{false, true, 0.1, 0.6, 1});  // the last two updates
    const AxisSpan first = axis.next({0, 0.05});            // [0, 0.055]
    EXPECT_EQ(axis.next({0, 0.02}), first);
    EXPECT_EQ(axis.next({0, 0.05}), first);
    EXPECT_EQ(axis.next({0, 0.02}), first);
    EXPECT_DOUBLE_EQ(axis.next({0, 0.02}).hi, 0.022);  // two low ones in a row: 36% filled
}

TEST(SteadyAxis, FreeLowEndHoldsTheLowestOfItsUpdates) {
    // log10 of a loss, both ends free, the last two updates.
    SteadyAxis axis(SteadyRule{true, true, 0.1, 0.6, 1});
    const AxisSpan first = axis.next({-2.3, -0.4});  // [-2.5, -0.2] (see BothEndsFreeRoundOutward)
    EXPECT_NEAR(first.lo, -2.5, 1e-12);
    EXPECT_NEAR(first.hi, -0.2, 1e-12);
    EXPECT_EQ(axis.next({-1.5, -0.4}), first);  // envelope -2.3..-0.4 still
    // Envelope -1.5..-0.4 fills 1.1 / 2.3 = 48%: span 1.1, headroom 0.11, grain 0.1: -1.61 -> -1.7, -0.29 -> -0.2.
    const AxisSpan narrower = axis.next({-1.5, -0.4});
    EXPECT_NEAR(narrower.lo, -1.7, 1e-12);
    EXPECT_NEAR(narrower.hi, -0.2, 1e-12);
}

TEST(SteadyAxis, DataAboveTheRangeMovesItAtOnceAndResetForgetsIt) {
    SteadyAxis axis(SteadyRule{false, true, 0.1, 0.6, 100});
    EXPECT_DOUBLE_EQ(axis.next({0, 0.05}).hi, 0.055);
    // 0.0677: headroom 0.00677, grain 0.005, 0.07447 -> 0.075.
    EXPECT_DOUBLE_EQ(axis.next({0, 0.0677}).hi, 0.075);
    axis.reset();
    EXPECT_DOUBLE_EQ(axis.next({0, 0.02}).hi, 0.022);  // no range kept: made for the data
}

TEST(SteadyAxis, FollowMovesInStepsWhileMovingAndIsExactAtRest) {
    SteadyAxis axis(SteadyRule{false, true, 0.1, 0.6, 100});
    EXPECT_DOUBLE_EQ(axis.follow({0, 0.05}, true).hi, 0.055);  // as next()
    EXPECT_DOUBLE_EQ(axis.follow({0, 0.04}, true).hi, 0.055);  // kept while moving
    EXPECT_EQ(axis.follow({0, 0.04}, false), (AxisSpan{0, 0.04}));  // at rest: the data's own range
    EXPECT_DOUBLE_EQ(axis.follow({0, 0.02}, true).hi, 0.022);  // and the kept range was forgotten
}

}  // namespace
}  // namespace plab
