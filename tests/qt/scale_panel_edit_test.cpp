// A person edits growth_interval in the loss-scale panel: the edit must reach
// the scaler of the running training, which then grows on the new schedule.
#include <gtest/gtest.h>

#include <QSpinBox>
#include <QTest>
#include <cmath>

#include "ui/qt/main_window.h"
#include "ui/qt/scale_panel.h"

namespace {

TEST(ScalePanelEdit, GrowthIntervalTypedInThePanelReachesTheRunningScaler) {
    plab::qt::MainWindow window("spirals-amp-fp16", false);
    window.show();
    plab::Session& session = window.session();
    session.step(2);
    session.wait_until_idle();
    window.refresh();

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

}  // namespace
