// A person edits growth_interval in the loss-scale panel: the edit must reach
// the scaler of the running training, which then grows on the new schedule.
#include <gtest/gtest.h>

#include <QPushButton>
#include <QSpinBox>
#include <QTest>
#include <cmath>

#include "ui/qt/main_window.h"
#include "ui/qt/scale_panel.h"

namespace {

// The window shown after `steps` steps, its panels showing them.
plab::Session& shown_after_steps(plab::qt::MainWindow& window, std::int64_t steps) {
    window.show();
    plab::Session& session = window.session();
    session.step(steps);
    session.wait_until_idle();
    window.refresh();
    return session;
}

TEST(ScalePanelEdit, GrowthIntervalTypedInThePanelReachesTheRunningScaler) {
    plab::qt::MainWindow window("spirals-amp-fp16", false);
    plab::Session& session = shown_after_steps(window, 2);

    QSpinBox* box = window.scale_panel()->growth_interval_box();
    ASSERT_EQ(box->value(), 2000);  // the preset's, shown by the panel
    box->setFocus();
    box->selectAll();
    QTest::keyClicks(box, "3");
    QTest::keyClick(box, Qt::Key_Return);  // editingFinished: the panel sends the edit
    session.step(3);
    session.wait_until_idle();

    const auto snap = session.snapshot();
    EXPECT_EQ(snap->main.config->scaler.growth_interval, 3);
    ASSERT_EQ(snap->main.log.edits.size(), 1u);
    EXPECT_EQ(snap->main.log.edits[0].assignment, "scaler.growth_interval=3");
    EXPECT_EQ(snap->main.log.edits[0].step, 2);
    // Steps 1 and 2 were clean, so the growth tracker stood at 2 when the edit
    // landed: the first step after it reaches the new interval of 3 and grows
    // the preset's 2^16 (with the old 2000 nothing would grow for 1998 steps),
    // and the tracker starts again from 0.
    const plab::StepRecord* grown = snap->main.log.find(3);
    ASSERT_NE(grown, nullptr);
    EXPECT_FALSE(grown->found_inf);
    EXPECT_TRUE(grown->growth);
    EXPECT_EQ(grown->scale, 65536.0f);
    EXPECT_EQ(grown->scale_after, 131072.0f);
    EXPECT_FALSE(snap->main.log.find(4)->growth);
    EXPECT_FALSE(snap->main.log.find(5)->growth);
    EXPECT_EQ(snap->main.log.latest()->growth_tracker, 2);
}

// Qt finishes a spin box edit on Enter and again when the focus leaves:
// the run must see (and log) the edit once, and a field the focus merely
// passes through must send nothing.
TEST(ScalePanelEdit, AnEditIsLoggedOnceAndAnUnchangedFieldNotAtAll) {
    plab::qt::MainWindow window("spirals-amp-fp16", false);
    window.show();
    window.activateWindow();
    ASSERT_TRUE(QTest::qWaitForWindowActive(&window));
    plab::Session& session = window.session();
    window.refresh();

    QSpinBox* box = window.scale_panel()->growth_interval_box();
    box->setFocus();
    ASSERT_TRUE(box->hasFocus());
    QTest::keyClick(box, Qt::Key_Tab);  // in and out with no change
    box->setFocus();
    box->selectAll();
    QTest::keyClicks(box, "3");
    QTest::keyClick(box, Qt::Key_Return);
    QTest::keyClick(box, Qt::Key_Tab);  // the focus leaves: editingFinished again
    ASSERT_FALSE(box->hasFocus());
    session.step(1);
    session.wait_until_idle();

    const auto snap = session.snapshot();
    ASSERT_EQ(snap->main.log.edits.size(), 1u);
    EXPECT_EQ(snap->main.log.edits[0].assignment, "scaler.growth_interval=3");
}

}  // namespace

namespace {

// min_scale below a millionth: a fixed-decimals box showed 2^-30 as 0.000000.
TEST(ScaleSpinBox, ShowsTakesAndStepsScalesOfAnySize) {
    plab::qt::ScaleSpinBox box(std::ldexp(1.0, -149), std::ldexp(1.0, 127), {}, nullptr);
    box.setValue(std::ldexp(1.0, -30));
    EXPECT_EQ(box.value(), std::ldexp(1.0, -30));
    EXPECT_EQ(box.text().toStdString(), "2^-30");
    box.setValue(3e-8);
    EXPECT_EQ(box.text().toStdString(), "3e-08");
    box.stepBy(1);  // a step is a factor of two
    EXPECT_EQ(box.value(), 6e-8);
    box.selectAll();
    QTest::keyClicks(&box, "2^-40");
    QTest::keyClick(&box, Qt::Key_Return);
    EXPECT_EQ(box.value(), std::ldexp(1.0, -40));
    plab::qt::ScaleSpinBox ceiling(0.0, std::ldexp(1.0, 127), "none", nullptr);
    EXPECT_EQ(ceiling.text().toStdString(), "none");
}

}  // namespace

namespace {

// init_scale as a person types it after Ctrl+A: the whole text is replaced,
// and a value between powers of two rounds to the nearest.
double typed_init_scale(plab::qt::ScaleSpinBox& box, const char* text) {
    QTest::keyClick(&box, Qt::Key_A, Qt::ControlModifier);
    QTest::keyClicks(&box, text);
    QTest::keyClick(&box, Qt::Key_Return);
    return box.value();
}

TEST(ScaleSpinBox, InitScaleTakesPowersDecimalsAndRoundsTheRest) {
    plab::qt::MainWindow window("spirals-amp-fp16", false);
    window.show();
    window.refresh();
    plab::qt::ScaleSpinBox& box = *window.scale_panel()->init_scale_box();
    ASSERT_EQ(box.value(), 65536.0);  // the preset's
    EXPECT_EQ(typed_init_scale(box, "2^24"), 16777216.0);
    EXPECT_EQ(box.text().toStdString(), "2^24");
    EXPECT_EQ(typed_init_scale(box, "65536"), 65536.0);
    EXPECT_EQ(typed_init_scale(box, "2^20"), 1048576.0);
    EXPECT_EQ(typed_init_scale(box, "6.5e4"), 65536.0);
    EXPECT_EQ(box.text().toStdString(), "2^16");
    EXPECT_EQ(typed_init_scale(box, "1000"), 1024.0);
    EXPECT_EQ(typed_init_scale(box, "2^65"), 1024.0);  // out of range: the last value stays
    EXPECT_EQ(box.text().toStdString(), "2^10");
    box.stepBy(-1);
    EXPECT_EQ(box.value(), 512.0);
}

// The live scale's ÷2 and ×2: the next step trains at half or twice the
// scale the last one left, and the edit is logged as the live scale's.
TEST(ScalePanelEdit, HalvingAndDoublingTheLiveScaleReachTheNextStep) {
    plab::qt::MainWindow window("spirals-amp-fp16", false);
    plab::Session& session = shown_after_steps(window, 2);
    const float before = session.snapshot()->main.log.latest()->scale_after;

    QPushButton* halve = window.scale_panel()->live_scale_button(0);
    QPushButton* twice = window.scale_panel()->live_scale_button(1);
    ASSERT_TRUE(halve->isEnabled());
    QTest::mouseClick(halve, Qt::LeftButton);
    session.step(1);
    session.wait_until_idle();
    EXPECT_EQ(session.snapshot()->main.log.latest()->scale, before / 2);

    window.refresh();
    const float now = session.snapshot()->main.log.latest()->scale_after;
    QTest::mouseClick(twice, Qt::LeftButton);
    session.step(1);
    session.wait_until_idle();
    const auto snap = session.snapshot();
    EXPECT_EQ(snap->main.log.latest()->scale, now * 2);
    ASSERT_EQ(snap->main.log.edits.size(), 2u);
    EXPECT_EQ(snap->main.log.edits[0].assignment.rfind("scaler.scale=", 0), 0u);
}

}  // namespace
