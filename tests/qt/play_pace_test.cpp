// Play at the pace chooser's rate: 30 steps/s on a fresh install, the Play
// button checked while the run trains, and a paced run trains no faster
// than its pace.
#include <gtest/gtest.h>

#include <QAction>
#include <QComboBox>
#include <QElapsedTimer>
#include <QTest>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "ui/present/play_pace.h"
#include "ui/qt/main_window.h"
#include "temp_path.h"

namespace {

QComboBox* pace_box(plab::qt::MainWindow& window) {
    for (QComboBox* box : window.findChildren<QComboBox*>())
        if (box->findText("max") >= 0 && box->findText("30 steps/s") >= 0) return box;
    return nullptr;
}

QAction* play_action(plab::qt::MainWindow& window) {
    for (QAction* a : window.findChildren<QAction*>())
        if (a->text().contains("Play")) return a;
    return nullptr;
}

TEST(PaceChooser, PlaysAtTheChosenPaceAndShowsItsState) {
    plab::qt::MainWindow window("spirals-amp-fp16", false);
    QComboBox* box = pace_box(window);
    ASSERT_NE(box, nullptr);
    ASSERT_EQ(box->count(), static_cast<int>(plab::pace_choices().size()));
    EXPECT_EQ(box->currentText(), "30 steps/s");
    box->setCurrentText("10 steps/s");
    QAction* play = play_action(window);
    ASSERT_NE(play, nullptr);
    EXPECT_FALSE(play->isChecked());

    plab::Session& session = window.session();
    QElapsedTimer clock;
    clock.start();
    play->trigger();
    ASSERT_TRUE(QTest::qWaitFor([&] { return session.snapshot()->step >= 3; }, 5000));
    const double seconds = clock.elapsed() / 1000.0;
    const std::int64_t steps = session.snapshot()->step;
    EXPECT_TRUE(play->isChecked());
    // 10 a second, plus what a quarter-second stall may owe and the step under way.
    EXPECT_LE(steps, static_cast<std::int64_t>(10 * seconds + 2.5 + 1)) << seconds << " s";

    for (QAction* a : window.findChildren<QAction*>())
        if (a->text() == "Pause") a->trigger();
    session.wait_until_idle();
    EXPECT_TRUE(QTest::qWaitFor([&] { return !play->isChecked(); }, 2000));
}

// A "Try" after the run reached its planned steps: the fork trains from
// step 0 to its own plan while the run stays at its own.
TEST(PaceChooser, AForkMadeAfterThePlanTrainsToItsOwn) {
    // Named for this process: a second checkout's tests running at once must not rewrite it.
    const std::filesystem::path file =
        plab::testing_support::temp_path("plab-pace-fork-test", ".json");
    {
        std::ofstream out(file);
        out << R"({"name": "short", "steps": 12})";
    }
    plab::qt::MainWindow window(file.string(), false);
    pace_box(window)->setCurrentText("1000 steps/s");
    plab::Session& session = window.session();
    session.play();
    session.wait_until_idle();
    ASSERT_EQ(session.snapshot()->step, 12);

    window.fork_and_train(0, {"optimizer.lr=0.05"});
    const bool trained = QTest::qWaitFor(
        [&] {
            const auto s = session.snapshot();
            return s->fork && s->fork->steps_done == 12 && !s->playing;
        },
        10000);
    EXPECT_TRUE(trained);
    EXPECT_EQ(session.snapshot()->step, 12);  // the run stays at its plan
    std::filesystem::remove(file);
}

// A scenario's Start: the run from step 0 again, its fork gone, playing.
TEST(PaceChooser, AScenariosStartTrainsAgainFromStepZero) {
    plab::qt::MainWindow window("scaler-sawtooth", false);
    plab::Session& session = window.session();
    session.step(30);
    session.fork(10, {"scaler.growth_interval=500"});
    session.wait_until_idle();
    ASSERT_TRUE(session.snapshot()->fork.has_value());
    window.start_from_zero();
    const bool restarted = QTest::qWaitFor(
        [&] {
            const auto s = session.snapshot();
            return !s->fork && s->step > 0 && s->step < 30;
        },
        5000);
    EXPECT_TRUE(restarted);
    EXPECT_TRUE(play_action(window)->isChecked() || session.snapshot()->playing);
    session.pause();
    session.wait_until_idle();
}

}  // namespace
