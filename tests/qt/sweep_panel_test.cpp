// The sweep panel used as a person would: a tiny grid typed into its fields
// trains to the end and draws a heat map with every cell filled; a bad axis
// is refused with a message that names it, and nothing trains.
#include <gtest/gtest.h>

#include <QHash>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>

#include "engine/train/preset_io.h"
#include "ui/qt/sweep_panel.h"

namespace {

struct TinySweep {
    plab::qt::SweepPanel panel{[] { return plab::load_preset("spirals-amp-fp16"); }};
    TinySweep() {
        panel.resize(900, 700);
        set("axis-1-values", "2^8,2^24");
        set("axis-2-values", "20,500");
        panel.findChild<QSpinBox*>("sweep-steps")->setValue(40);
    }
    void set(const char* name, const QString& text) { panel.findChild<QLineEdit*>(name)->setText(text); }
    QString message() const { return panel.findChild<QLabel*>("sweep-message")->text(); }
};

// The share of sampled pixels unlike the most common one (the background).
double not_background(const QImage& img) {
    QHash<QRgb, int> counts;
    int samples = 0, most = 0;
    for (int y = 0; y < img.height(); y += 2)
        for (int x = 0; x < img.width(); x += 2) {
            most = std::max(most, ++counts[img.pixel(x, y)]);
            ++samples;
        }
    return samples ? 1.0 - static_cast<double>(most) / samples : 0.0;
}

TEST(SweepPanel, ATinySweepFillsTheHeatMap) {
    TinySweep t;
    ASSERT_TRUE(t.panel.start()) << t.message().toStdString();
    t.panel.wait();
    const plab::SweepHeatMap& v = t.panel.view();
    ASSERT_EQ(v.cells.size(), 4u);
    EXPECT_EQ(v.finished, 4u);
    for (const plab::SweepCellView& c : v.cells) EXPECT_FALSE(c.pending);
    const QImage image = t.panel.findChild<QWidget*>("sweep-heat-map")->grab().toImage();
    // Four filled cells and a legend bar cover far more than a third of the
    // canvas; the empty canvas is one colour and a line of text.
    EXPECT_GT(not_background(image), 0.35);
}

TEST(SweepPanel, ABadAxisIsRefusedByName) {
    TinySweep t;
    t.set("axis-2-values", "20,,500");
    EXPECT_FALSE(t.panel.start());
    EXPECT_FALSE(t.panel.running());
    EXPECT_TRUE(t.message().contains("Axis 2")) << t.message().toStdString();
    EXPECT_TRUE(t.message().contains("scaler.growth_interval")) << t.message().toStdString();
    t.set("axis-2-values", "20,500");
    t.set("axis-1-values", "2^8,banana");
    EXPECT_FALSE(t.panel.start());
    EXPECT_TRUE(t.message().contains("scaler.init_scale")) << t.message().toStdString();
}

}  // namespace
