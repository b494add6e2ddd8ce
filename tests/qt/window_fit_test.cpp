// The workbench fits a small screen (1280 x 800, less a taskbar and the
// title): its least size is within 1280 x 740, and shown at that size it
// stays there instead of growing to hold every dock stacked.
#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QAbstractAxis>
#include <QChartView>
#include <QDockWidget>
#include <QFontMetricsF>
#include <QScrollArea>
#include <QScrollBar>

#include "ui/qt/main_window.h"
#include "ui/qt/panel.h"

namespace {

TEST(WindowFit, ASmallScreensWindowHoldsEveryPanel) {
    plab::qt::MainWindow window("spirals-amp-fp16", false);
    window.show_fitted(QSize(1280, 740));
    const QSize least = window.minimumSizeHint();
    EXPECT_LE(least.width(), 1280);
    EXPECT_LE(least.height(), 740);
    EXPECT_LE(window.width(), std::max(1280, least.width()));
    EXPECT_LE(window.height(), std::max(740, least.height()));
    // "all layers" shows small multiples in a scrolled grid: the least size stays.
    plab::Session& session = window.session();
    session.step(10);
    session.wait_until_idle();
    window.refresh();
    for (QComboBox* box : window.panel("histograms")->findChildren<QComboBox*>())
        if (box->findText("all layers") >= 0) box->setCurrentIndex(box->findText("all layers"));
    QApplication::processEvents();
    EXPECT_LE(window.minimumSizeHint().height(), 740) << window.panel("histograms")->minimumSizeHint().height();
    EXPECT_LE(window.height(), std::max(740, least.height()));
    int shown = 0;
    for (QDockWidget* d : window.findChildren<QDockWidget*>()) shown += d->isVisible();
    EXPECT_EQ(shown, 12);  // every panel still has its dock
}

// On the small screen the plots are short: each vertical axis keeps a title
// that fits its plot's height whole ("distance", "log2 S") instead of an
// elided one ("weight dis...").
TEST(WindowFit, ShortPlotsKeepWholeAxisTitles) {
    plab::qt::MainWindow window("spirals-amp-fp16", false);
    window.show_fitted(QSize(1280, 740));
    window.session().step(200);
    window.session().wait_until_idle();
    static_cast<QDockWidget*>(window.panel("divergence")->parentWidget())->raise();
    window.refresh();
    QApplication::processEvents();
    int checked = 0;
    for (const char* id : {"divergence", "scale"})
        for (QChartView* view : window.panel(id)->findChildren<QChartView*>()) {
            if (!view->isVisible()) continue;
            for (QAbstractAxis* axis : view->chart()->axes(Qt::Vertical)) {
                const QString title = axis->titleText();
                EXPECT_FALSE(title.isEmpty()) << id;
                EXPECT_LE(QFontMetricsF(axis->titleFont()).horizontalAdvance(title), view->chart()->plotArea().height())
                    << id << ": " << title.toStdString();
                ++checked;
            }
        }
    EXPECT_EQ(checked, 3);  // weight distance, grad cosine, log2 scale
}

// The bit layout's widest row, FP32's 32 cells, fits the small screen's
// column: no sideways scrolling to see a value's last mantissa bits.
TEST(WindowFit, TheBitLayoutsWidestRowFits) {
    plab::qt::MainWindow window("spirals-amp-fp16", false);
    window.show_fitted(QSize(1280, 740));
    QApplication::processEvents();
    auto* area = window.panel("bits")->findChild<QScrollArea*>();
    ASSERT_NE(area, nullptr);
    EXPECT_EQ(area->horizontalScrollBar()->maximum(), 0) << "viewport " << area->viewport()->width() << " px";
}

}  // namespace
