// The histogram panel's "all layers" choice: one small chart per layer on a
// shared x range, and a counters row per layer and chosen format.
#include <gtest/gtest.h>

#include <QApplication>
#include <QComboBox>
#include <QImage>
#include <QLabel>

#include "ui/qt/histogram_chart.h"
#include "ui/qt/main_window.h"

namespace {

QComboBox* layer_chooser(QWidget* panel) {
    for (QComboBox* box : panel->findChildren<QComboBox*>())
        if (box->findText("all layers") >= 0) return box;
    return nullptr;
}

// Distinct colours in the image: a blank or single-colour widget has one or two.
int colours(const QImage& image) {
    QList<QRgb> seen;
    for (int y = 0; y < image.height(); y += 3)
        for (int x = 0; x < image.width(); x += 3)
            if (!seen.contains(image.pixel(x, y)) && seen.size() < 64) seen.append(image.pixel(x, y));
    return static_cast<int>(seen.size());
}

TEST(HistogramPanel, AllLayersShowsSmallMultiplesAndEveryLayersCounters) {
    plab::qt::MainWindow window("spirals-amp-fp16", false);
    window.show();
    plab::Session& session = window.session();
    session.step(20);  // histograms every 10 steps
    session.wait_until_idle();
    window.refresh();
    plab::qt::Panel* panel = window.panel("histograms");
    ASSERT_NE(panel, nullptr);
    QComboBox* layers = layer_chooser(panel);
    ASSERT_NE(layers, nullptr);
    ASSERT_EQ(layers->count(), 4);  // fc1, fc2, fc3, all layers
    EXPECT_EQ(layers->currentText(), "fc3");  // the output layer first

    layers->setCurrentIndex(layers->findText("all layers"));
    panel->resize(1000, 700);
    QApplication::processEvents();
    int shown = 0;
    for (plab::qt::HistogramChart* chart : panel->findChildren<plab::qt::HistogramChart*>()) {
        if (!chart->isVisible()) continue;
        ++shown;
        EXPECT_GT(colours(chart->grab().toImage()), 4) << "a small chart is blank";
    }
    EXPECT_EQ(shown, 3);
    QString counters;  // every label's text, in creation order: the counters table's row names among them
    for (QLabel* label : panel->findChildren<QLabel*>()) counters += label->text() + "|";
    for (const char* row : {"fc1 FP16", "fc2 FP16", "fc3 FP16", "fc1 BF16", "fc3 BF16"})
        EXPECT_TRUE(counters.contains(QString("|") + row + "|")) << row;
    panel->grab().save(QString::fromStdString(::testing::TempDir() + "histograms_all_layers.png"));

    layers->setCurrentIndex(0);  // back to one layer: one large chart
    QApplication::processEvents();
    shown = 0;
    for (plab::qt::HistogramChart* chart : panel->findChildren<plab::qt::HistogramChart*>()) shown += chart->isVisible();
    EXPECT_EQ(shown, 1);
}

}  // namespace
