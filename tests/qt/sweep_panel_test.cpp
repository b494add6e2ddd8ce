// The sweep panel used as a person would: a tiny grid typed into its fields
// trains to the end and draws a heat map with every cell filled; a bad axis
// is refused with a message that names it, and nothing trains.
#include <gtest/gtest.h>

#include <QHash>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QTest>
#include <string>
#include <vector>

#include "engine/train/preset_io.h"
#include "ui/qt/main_window.h"
#include "ui/qt/sweep_panel.h"

namespace {

struct TinySweep {
    std::vector<std::vector<std::string>> opened;  // what clicks asked to train beside the run
    std::string backend = "cpu";                   // where the window trains
    plab::qt::SweepPanel panel{[] { return plab::load_preset("spirals-amp-fp16"); },
                               [this](const std::vector<std::string>& settings) { opened.push_back(settings); },
                               [this] { return backend; }};
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

// The sweep trains where the window trains, asked as it starts: a backend
// this test binary cannot make (it registers no CUDA backend) stops the
// sweep with make_run_backend's message.
TEST(SweepPanel, TrainsOnTheWindowsBackend) {
    TinySweep t;
    t.backend = "cuda";
    ASSERT_TRUE(t.panel.start()) << t.message().toStdString();
    t.panel.wait();
    EXPECT_TRUE(t.message().contains("this build has no CUDA backend")) << t.message().toStdString();
    EXPECT_EQ(t.panel.view().finished, 0u);
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

// A click on a finished cell asks for that cell's first run, as settings on
// the base preset: each of the four cells once, wherever in it the click lands.
TEST(SweepPanel, AClickOnACellAsksForItsRun) {
    TinySweep t;
    ASSERT_TRUE(t.panel.start()) << t.message().toStdString();
    t.panel.wait();
    auto* canvas = t.panel.findChild<QWidget*>("sweep-heat-map");
    ASSERT_NE(canvas, nullptr);
    canvas->grab();  // painted once: the cells have their places
    std::vector<std::vector<std::string>> distinct;
    for (int y = 0; y < canvas->height(); y += 12)
        for (int x = 0; x < canvas->width(); x += 12) {
            QTest::mouseClick(canvas, Qt::LeftButton, {}, QPoint(x, y));
            if (!t.opened.empty() && std::find(distinct.begin(), distinct.end(), t.opened.back()) == distinct.end())
                distinct.push_back(t.opened.back());
        }
    ASSERT_EQ(distinct.size(), 4u);
    for (const auto& settings : distinct) {
        ASSERT_EQ(settings.size(), 3u);
        EXPECT_EQ(settings[2], "steps=40");
    }
    EXPECT_NE(std::find(distinct.begin(), distinct.end(),
                        std::vector<std::string>{"scaler.init_scale=2^24", "scaler.growth_interval=20", "steps=40"}),
              distinct.end());
}

// In the workbench the cell's run trains beside the window's run: a fork
// from step 0 with the cell's settings, drawn in the loss and scale panels.
TEST(SweepPanel, TheWorkbenchTrainsAClickedCellBesideTheRun) {
    plab::qt::MainWindow window("spirals-amp-fp16", false);
    window.show();
    auto* sweep = dynamic_cast<plab::qt::SweepPanel*>(window.panel("sweep"));
    ASSERT_NE(sweep, nullptr);
    sweep->findChild<QLineEdit*>("axis-1-values")->setText("2^8,2^24");
    sweep->findChild<QLineEdit*>("axis-2-values")->setText("20,500");
    sweep->findChild<QSpinBox*>("sweep-steps")->setValue(40);
    ASSERT_TRUE(sweep->start());
    sweep->wait();
    sweep->open_cell(1);  // scaler.init_scale=2^8, scaler.growth_interval=500
    window.session().pause();
    window.session().wait_until_idle();
    const auto snapshot = window.session().snapshot();
    ASSERT_TRUE(snapshot->fork.has_value());
    ASSERT_NE(snapshot->fork->config, nullptr);
    EXPECT_EQ(snapshot->fork->forked_at, 0);
    EXPECT_EQ(snapshot->fork->config->scaler.init_scale, 256.0f);
    EXPECT_EQ(snapshot->fork->config->scaler.growth_interval, 500);
    EXPECT_EQ(snapshot->fork->config->steps, 40);
}

}  // namespace
