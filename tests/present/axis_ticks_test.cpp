// Tick marks checked against hand-counted cases: the interval is the first of
// 1, 2, 5 x 10^k whose multiples in the range number at most max_ticks.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "ui/present/axis_ticks.h"

namespace plab {
namespace {

void expect_ticks(const std::vector<AxisTick>& got, const std::vector<double>& values,
                  const std::vector<std::string>& texts) {
    ASSERT_EQ(got.size(), values.size());
    for (std::size_t i = 0; i < got.size(); ++i) {
        EXPECT_DOUBLE_EQ(got[i].value, values[i]) << "tick " << i;
        EXPECT_EQ(got[i].text, texts[i]) << "tick " << i;
    }
}

TEST(TickInterval, StepsOfALongRun) {
    // 0..2000 with room for 6: 200 gives 11 ticks, 500 gives 5.
    EXPECT_DOUBLE_EQ(tick_interval(0, 2000, 6), 500);
    expect_ticks(linear_ticks(0, 2000, 6), {0, 500, 1000, 1500, 2000}, {"0", "500", "1000", "1500", "2000"});
}

TEST(TickInterval, ExactlyMaxTicksFit) {
    // 0..100 with room for 11: 10 gives exactly 11 ticks.
    EXPECT_DOUBLE_EQ(tick_interval(0, 100, 11), 10);
    EXPECT_DOUBLE_EQ(tick_interval(0, 100, 10), 20);
}

TEST(TickInterval, MinimumIntervalForWholeSteps) {
    // Five steps with room for a hundred ticks: 0.1 would fit, whole steps only is 1.
    EXPECT_DOUBLE_EQ(tick_interval(0, 5, 100), 0.1);
    EXPECT_DOUBLE_EQ(tick_interval(0, 5, 100, 1), 1);
    expect_ticks(linear_ticks(0, 3, 100, 1), {0, 1, 2, 3}, {"0", "1", "2", "3"});
}

TEST(LinearTicks, DecimalsFollowTheInterval) {
    // 0.9..1 with room for 5: 0.02 gives 6 ticks, 0.05 gives 3.
    expect_ticks(linear_ticks(0.9, 1.0, 5), {0.9, 0.95, 1.0}, {"0.90", "0.95", "1.00"});
}

TEST(LinearTicks, NegativeRangeNotOnMultiples) {
    // -7.5..3.2 with room for 5: 1 gives 11, 2 gives -6 -4 -2 0 2.
    expect_ticks(linear_ticks(-7.5, 3.2, 5), {-6, -4, -2, 0, 2}, {"-6", "-4", "-2", "0", "2"});
}

TEST(LinearTicks, EmptyRangeGivesIntervalOne) {
    EXPECT_DOUBLE_EQ(tick_interval(1, 1, 5), 1);
    expect_ticks(linear_ticks(1, 1, 5), {1}, {"1"});
}

TEST(ExponentTicks, Binades) {
    // -30..10 binades with room for 9: 2 gives 21, 5 gives 9.
    expect_ticks(exponent_ticks(-30, 10, 9, 2), {-30, -25, -20, -15, -10, -5, 0, 5, 10},
                 {"2^-30", "2^-25", "2^-20", "2^-15", "2^-10", "2^-5", "2^0", "2^5", "2^10"});
}

TEST(ExponentTicks, DecadesNeverSplit) {
    // Room for many ticks still gives whole decades only.
    expect_ticks(exponent_ticks(-3, 1, 50, 10), {-3, -2, -1, 0, 1}, {"1e-3", "0.01", "0.1", "1", "10"});
    expect_ticks(exponent_ticks(2, 4, 50, 10), {2, 3, 4}, {"100", "1e+3", "1e+4"});
    expect_ticks(exponent_ticks(-0.5, 0.5, 50, 10), {0}, {"1"});
}

TEST(TickDecimals, AsManyAsTheIntervalNeeds) {
    EXPECT_EQ(tick_decimals(500), 0);
    EXPECT_EQ(tick_decimals(1), 0);
    EXPECT_EQ(tick_decimals(0.5), 1);
    EXPECT_EQ(tick_decimals(0.02), 2);
    EXPECT_EQ(tick_decimals(0.005), 3);
}

TEST(BinadeInterval, PowersOfTwo) {
    // -132..110 with room for 12: 16 gives -128..96, fifteen ticks; 32 gives eight.
    EXPECT_DOUBLE_EQ(binade_interval(-132, 110, 12), 32);
    // -26..17 with room for 12: 2 gives 22, 4 gives -24..16, eleven.
    EXPECT_DOUBLE_EQ(binade_interval(-26, 17, 12), 4);
    // A log2 scale from 2^-90 to 2^11 with room for 8: 8 gives -88..8, thirteen; 16 gives six.
    EXPECT_DOUBLE_EQ(binade_interval(-90, 11, 8), 16);
    EXPECT_DOUBLE_EQ(binade_interval(-3, 3, 12), 1);
    EXPECT_DOUBLE_EQ(binade_interval(2, 2, 5), 1);
}

TEST(ReadableTicks, AtLeastThreeWhenCrowdingAllows) {
    // 2^16.6..2^25.4 with room for 2 at ease: 5 gives 2^20 and 2^25 only; 2
    // gives 18 20 22 24, four, within the 7 a crowded axis takes.
    const TickRoom room{2, 7, 3};
    EXPECT_DOUBLE_EQ(tick_interval(16.6, 25.4, 2, 1), 5);
    EXPECT_DOUBLE_EQ(readable_interval(16.6, 25.4, room, 1), 2);
    expect_ticks(readable_exponent_ticks(16.6, 25.4, room, 2), {18, 20, 22, 24}, {"2^18", "2^20", "2^22", "2^24"});
}

TEST(ReadableTicks, EnoughAtEaseIsKept) {
    // 0..600 with room for 6: 200 gives 4 ticks, already three or more.
    expect_ticks(readable_linear_ticks(0, 600, {6, 9, 3}, 1), {0, 200, 400, 600}, {"0", "200", "400", "600"});
}

TEST(ReadableTicks, NoCrowdingRoomKeepsTheUsualInterval) {
    // 0..1.5 in whole steps with room for 2 at most: 1 gives 0 and 1; nothing gives three.
    EXPECT_DOUBLE_EQ(readable_interval(0, 1.5, {2, 2, 3}, 1), 1);
}

TEST(TickedRange, CosineBelowZeroGetsALabel) {
    // -0.3..1 with room for 4: 0.2 widens it to -0.4..1, eight ticks; 0.5
    // to -0.5..1, four, a widening by 1.15.
    const TickedRange r = ticked_range(-0.3, 1, {4, 6, 3});
    EXPECT_DOUBLE_EQ(r.interval, 0.5);
    EXPECT_DOUBLE_EQ(r.lo, -0.5);
    EXPECT_DOUBLE_EQ(r.hi, 1);
    expect_ticks(r.ticks, {-0.5, 0, 0.5, 1}, {"-0.5", "0.0", "0.5", "1.0"});
}

TEST(TickedRange, LessRoomWidensFurther) {
    // Room for 3 even crowded: 0.5 gives four ticks, 1 gives -1 0 1.
    const TickedRange r = ticked_range(-0.3, 1, {3, 3, 3});
    EXPECT_DOUBLE_EQ(r.lo, -1);
    EXPECT_DOUBLE_EQ(r.hi, 1);
    expect_ticks(r.ticks, {-1, 0, 1}, {"-1", "0", "1"});
}

TEST(TickedRange, HistogramFractions) {
    // 0..0.0626 with room for 6: 0.02 gives 0..0.08, five ticks, but widens
    // it by 1.28; room for 9 crowded takes 0.01: 0..0.07, eight ticks.
    // Without the crowded room, 0.02 stays.
    const TickedRange r = ticked_range(0, 0.0626, {6, 9, 3});
    EXPECT_DOUBLE_EQ(r.lo, 0);
    EXPECT_DOUBLE_EQ(r.hi, 0.07);
    EXPECT_EQ(r.ticks.size(), 8u);
    EXPECT_EQ(r.ticks.back().text, "0.07");
    const TickedRange less = ticked_range(0, 0.0626, {6, 6, 3});
    EXPECT_DOUBLE_EQ(less.hi, 0.08);
    expect_ticks(less.ticks, {0, 0.02, 0.04, 0.06, 0.08}, {"0.00", "0.02", "0.04", "0.06", "0.08"});
}

TEST(TickedRange, EmptyRangeGetsOneEachSide) {
    // Taken as 0..2: 0.5 gives five ticks, more than room for 4; 1 gives three.
    const TickedRange r = ticked_range(1, 1, {4, 4, 3});
    EXPECT_DOUBLE_EQ(r.lo, 0);
    EXPECT_DOUBLE_EQ(r.hi, 2);
    expect_ticks(r.ticks, {0, 1, 2}, {"0", "1", "2"});
}

}  // namespace
}  // namespace plab
