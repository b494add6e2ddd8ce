// Switching the theme restyles every panel at once, charts included (they
// take their colours when made), in the same docks, on the same run.
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QImage>
#include <QLineEdit>
#include <QSpinBox>
#include <QScrollArea>

#include "ui/qt/bit_layout_panel.h"
#include "ui/qt/chart_kit.h"
#include "ui/qt/main_window.h"
#include "ui/qt/sweep_panel.h"

namespace {

// Mean luminance (0..255) of a widget as drawn.
double luminance(QWidget* w) {
    const QImage image = w->grab().toImage().convertToFormat(QImage::Format_RGB32);
    double sum = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) sum += qGray(image.pixel(x, y));
    return sum / (image.width() * static_cast<double>(image.height()));
}

TEST(ThemeSwitch, ChartsFollowAtOnceInTheSameDocks) {
    plab::qt::set_dark_theme(false);
    plab::qt::MainWindow window("spirals-amp-fp16", false);
    window.resize(1600, 1000);
    window.show();
    window.session().step(50);
    window.session().wait_until_idle();
    window.redraw();
    QApplication::processEvents();
    plab::qt::Panel* before = window.panel("loss");
    ASSERT_NE(before, nullptr);
    QWidget* dock = before->parentWidget();
    const double light = luminance(before);

    window.apply_theme(true);
    QApplication::processEvents();
    plab::qt::Panel* after = window.panel("loss");
    ASSERT_NE(after, nullptr);
    EXPECT_NE(after, before);
    EXPECT_EQ(after->parentWidget(), dock);  // the same dock, so the layout stays
    EXPECT_TRUE(plab::qt::theme().dark);
    const double dark = luminance(after);
    EXPECT_LT(dark, light - 100) << "light " << light << ", dark " << dark;
    EXPECT_EQ(window.session().snapshot()->step, 50);  // the run goes on

    window.apply_theme(false);
    QApplication::processEvents();
    EXPECT_GT(luminance(window.panel("loss")), light - 10);
}

// The bit layout panel is made again with the theme: the value a person was
// inspecting stays.
TEST(ThemeSwitch, TheBitLayoutKeepsItsValue) {
    plab::qt::set_dark_theme(false);
    plab::qt::MainWindow window("spirals-amp-fp16", false);
    auto* bits = dynamic_cast<plab::qt::BitLayoutPanel*>(window.panel("bits"));
    ASSERT_NE(bits, nullptr);
    bits->set_value(65504.0f);
    window.apply_theme(true);
    auto* after = dynamic_cast<plab::qt::BitLayoutPanel*>(window.panel("bits"));
    ASSERT_NE(after, nullptr);
    EXPECT_NE(after, bits);
    EXPECT_EQ(after->value(), 65504.0f);
    window.apply_theme(false);
}

// Projector mode scales fonts and lines by kProjectorScale, the
// application's font included, and gives the histograms the left column by
// putting the bit layout's tab group in their tabs; switched off, both come
// back as they were.
TEST(ThemeSwitch, ProjectorModeScalesAndRelaysTheWindow) {
    using namespace plab::qt;
    set_dark_theme(false);
    const double normal_font = QApplication::font().pointSizeF();
    MainWindow window("spirals-amp-fp16", false);
    window.resize(1600, 1000);
    window.show();
    QApplication::processEvents();
    auto* histograms = qobject_cast<QDockWidget*>(window.panel("histograms")->parentWidget());
    auto* bits = qobject_cast<QDockWidget*>(window.panel("bits")->parentWidget());
    ASSERT_TRUE(histograms && bits);
    EXPECT_FALSE(window.tabifiedDockWidgets(histograms).contains(bits));

    QAction* toggle = nullptr;
    for (QAction* a : window.findChildren<QAction*>())
        if (a->text() == "&Projector mode") toggle = a;
    ASSERT_NE(toggle, nullptr);
    toggle->trigger();
    QApplication::processEvents();
    EXPECT_TRUE(projector());
    EXPECT_DOUBLE_EQ(font_points(10), 10 * kProjectorScale);
    EXPECT_DOUBLE_EQ(line_width(2), 2 * kProjectorScale);
    EXPECT_DOUBLE_EQ(QApplication::font().pointSizeF(), normal_font * kProjectorScale);
    EXPECT_TRUE(window.tabifiedDockWidgets(histograms).contains(bits));
    EXPECT_EQ(window.panel("histograms")->parentWidget(), histograms);  // the same docks, panels made again

    toggle->trigger();
    QApplication::processEvents();
    EXPECT_FALSE(projector());
    EXPECT_DOUBLE_EQ(font_points(10), 10);
    EXPECT_DOUBLE_EQ(QApplication::font().pointSizeF(), normal_font);
    EXPECT_FALSE(window.tabifiedDockWidgets(histograms).contains(bits));
}

// The scaler's fields keep their whole width in projector mode once the
// run shows its values (the live scale among them): the column is as wide
// as the form asks, with no part of a field cut off at its right edge.
TEST(ThemeSwitch, ProjectorModeKeepsTheScalerControlsWhole) {
    using namespace plab::qt;
    set_dark_theme(false);
    MainWindow window("spirals-amp-fp16", false);
    window.resize(1920, 1080);
    window.show();
    for (QAction* a : window.findChildren<QAction*>())
        if (a->text() == "&Projector mode") a->trigger();
    ASSERT_TRUE(projector());
    window.session().step(20);
    window.session().wait_until_idle();
    window.refresh();
    QApplication::processEvents();
    auto* controls = window.panel("scale")->findChild<QScrollArea*>();
    ASSERT_NE(controls, nullptr);
    EXPECT_GE(controls->viewport()->width(), controls->widget()->sizeHint().width());
    for (QAction* a : window.findChildren<QAction*>())
        if (a->text() == "&Projector mode") a->trigger();
    EXPECT_FALSE(projector());
}

// A theme switch makes the panels again, but not the sweep's: a grid's
// results (minutes of training, on a big grid) stay, drawn in the new theme.
TEST(ThemeSwitch, TheSweepKeepsItsResults) {
    using namespace plab::qt;
    set_dark_theme(false);
    MainWindow window("spirals-amp-fp16", false);
    window.show();
    auto* sweep = dynamic_cast<SweepPanel*>(window.panel("sweep"));
    ASSERT_NE(sweep, nullptr);
    sweep->findChild<QLineEdit*>("axis-1-values")->setText("2^8,2^24");
    sweep->findChild<QLineEdit*>("axis-2-values")->setText("20,500");
    sweep->findChild<QSpinBox*>("sweep-steps")->setValue(20);
    ASSERT_TRUE(sweep->start());
    sweep->wait();
    const double before = luminance(sweep);
    QAction* dark = nullptr;
    for (QAction* a : window.findChildren<QAction*>())
        if (a->text() == "&Dark theme") dark = a;
    ASSERT_NE(dark, nullptr);
    dark->trigger();
    QApplication::processEvents();
    EXPECT_EQ(window.panel("sweep"), sweep);
    EXPECT_EQ(sweep->view().finished, 4u);
    EXPECT_LT(luminance(sweep), before - 60);  // drawn dark
    dark->trigger();
    QApplication::processEvents();
}

}  // namespace
