// A paced play owes steps at its rate over the frames as they come, the
// fraction carried, a stall capped at a quarter second's worth.
#include <gtest/gtest.h>

#include <string>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/train/preset_io.h"
#include "engine/train/trainer_factory.h"
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

// The play both front ends share: flat out at max; paced, each frame queues
// the steps owed once the last frame's are done; a switch to max hands over
// to a plain play; and it ends with every run at its plan.
TEST(PacedPlay, QueuesTheStepsOwedAndEndsAtThePlan) {
    RunConfig config = load_preset("spirals-amp-fp16");
    apply_settings(config, {"steps=12"});
    Session session(config, trainer_factory(std::make_shared<CpuBackend>()));
    PacedPlay paced;
    paced.play(session, 10, 0.0);
    EXPECT_TRUE(paced.active());
    paced.frame(session, 10, 0.2);  // 2 steps owed
    session.wait_until_idle();
    EXPECT_EQ(session.snapshot()->step, 2);
    paced.frame(session, 10, 0.2);  // no time passed: nothing owed
    session.wait_until_idle();
    EXPECT_EQ(session.snapshot()->step, 2);
    paced.frame(session, 0, 0.3);  // switched to max
    EXPECT_FALSE(paced.active());
    session.wait_until_idle();
    EXPECT_EQ(session.snapshot()->step, 12);

    session.fork(4, {"optimizer.lr=0.05"});
    session.wait_until_idle();
    paced.play(session, 1000, 1.0);
    for (double now = 1.0; paced.active() && now < 10; now += 0.01) {
        paced.frame(session, 1000, now);
        session.wait_until_idle();
    }
    EXPECT_FALSE(paced.active());
    EXPECT_EQ(session.snapshot()->step, 12);
    EXPECT_EQ(session.snapshot()->fork->steps_done, 12);
}

}  // namespace
}  // namespace plab
