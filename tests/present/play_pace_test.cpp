// A paced play owes steps at its rate over the frames as they come, the
// fraction carried, a stall capped at a quarter second's worth.
#include <gtest/gtest.h>

#include <string>

#include "ui/present/play_pace.h"

namespace plab {
namespace {

TEST(PlayPace, SixtyFramesAtThirtyStepsASecondOweThirtySteps) {
    PlayPace pace;
    pace.start(10.0);
    std::int64_t total = 0, most = 0;
    for (int frame = 1; frame <= 60; ++frame) {
        const std::int64_t due = pace.steps_due(10.0 + frame / 60.0, 30);
        total += due;
        most = std::max(most, due);
    }
    EXPECT_EQ(total, 30);
    EXPECT_EQ(most, 1);  // one step every other frame, never two at once
}

TEST(PlayPace, AStallOwesAQuarterSecondAndTheFractionCarries) {
    PlayPace pace;
    pace.start(0.0);
    EXPECT_EQ(pace.steps_due(10.0, 30), 7);  // 0.25 s x 30 = 7.5: 7 now, the half carried
    EXPECT_EQ(pace.steps_due(10.0 + 1.0 / 60, 30), 1);  // 0.5 + 0.5
    EXPECT_EQ(pace.steps_due(10.0 + 1.0 / 60, 30), 0);  // no time passed
    pace.start(20.0);  // Play again: nothing owed from before
    EXPECT_EQ(pace.steps_due(20.0, 1000), 0);
    EXPECT_EQ(pace.steps_due(20.1, 1000), 100);
}

TEST(PlayPace, ChoicesEndWithMaxAndStartAtThirtyStepsASecond) {
    const auto choices = pace_choices();
    ASSERT_GE(choices.size(), 2u);
    EXPECT_EQ(std::string(choices.back().label), "max");
    EXPECT_EQ(choices.back().steps_per_second, 0.0);
    EXPECT_EQ(std::string(choices[default_pace_choice()].label), "30 steps/s");
    EXPECT_EQ(find_pace_choice("100 steps/s"), std::optional<std::size_t>(4));
    EXPECT_EQ(find_pace_choice("100"), std::nullopt);
    for (std::size_t i = 1; i + 1 < choices.size(); ++i)
        EXPECT_LT(choices[i - 1].steps_per_second, choices[i].steps_per_second) << i;
}

}  // namespace
}  // namespace plab
