// The diagnosis panel's remedies, clicked as a person would: each forks the
// run at the last finite step with its change, and the fork trains alongside.
#include <gtest/gtest.h>

#include <QApplication>
#include <QPushButton>
#include <QTest>

#include "ui/qt/main_window.h"

namespace {

QPushButton* button_starting(QWidget* panel, const QString& text) {
    for (QPushButton* b : panel->findChildren<QPushButton*>())
        if (b->text().startsWith(text)) return b;
    return nullptr;
}

TEST(NanPanel, LoweringTheLossScaleOnAForkAvoidsTheOverflow) {
    plab::qt::MainWindow window("fp16-static-overflow", false);
    window.show();
    plab::Session& session = window.session();
    session.step(262);
    session.wait_until_idle();
    window.refresh();
    plab::qt::Panel* panel = window.panel("nan");
    ASSERT_NE(panel, nullptr);
    // A person raises its tab first; a panel behind another tab waits, and catches up when shown.
    window.show_panel(panel);
    QApplication::processEvents();

    // fp16-pure keeps fc1's gradients in FP16 whatever it computes in: no FP32-layer remedy is offered.
    EXPECT_EQ(button_starting(panel, "Keep fc1 in FP32"), nullptr);
    QPushButton* remedy = button_starting(panel, "Lower the loss scale to 2^12");
    ASSERT_NE(remedy, nullptr) << "no remedy button for the scale";
    QTest::mouseClick(remedy, Qt::LeftButton);
    session.step(5);
    session.wait_until_idle();

    const auto snap = session.snapshot();
    ASSERT_TRUE(snap->fork.has_value());
    EXPECT_EQ(snap->fork->forked_at, 260);
    EXPECT_EQ(snap->fork->config->scaler.init_scale, 4096.0f);
    EXPECT_EQ(snap->fork->log.find(261)->scale, 4096.0f);
    // The run overflowed at step 261; the fork, at a sixteenth of the scale, does not.
    EXPECT_TRUE(snap->main.log.find(261)->found_inf);
    const plab::StepRecord* fork_261 = snap->fork->log.find(261);
    ASSERT_NE(fork_261, nullptr);
    EXPECT_FALSE(fork_261->found_inf);
}

}  // namespace
