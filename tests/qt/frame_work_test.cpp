// The workbench's frame-rate work: panels out of sight wait and catch up
// when shown, per-frame text repaints without laying the window out again,
// the growth tracker's bar reads the latest value, and chart axes move in
// steps only while the run moves.
#include <gtest/gtest.h>

#include <QApplication>
#include <QChartView>
#include <QImage>
#include <QLineSeries>
#include <QPainter>
#include <QLogValueAxis>
#include <QValueAxis>
#include <QVBoxLayout>
#include <map>
#include <tuple>

#include "ui/qt/decision_panel.h"
#include "ui/qt/histogram_chart.h"
#include "ui/qt/live_text.h"
#include "ui/qt/loss_panel.h"
#include "ui/qt/main_window.h"
#include "ui/qt/scale_panel.h"
#include "ui/qt/series_item.h"

namespace {

using plab::qt::LiveText;
using plab::qt::MainWindow;
using plab::qt::Panel;

void settle() {
    for (int i = 0; i < 5; ++i) QApplication::processEvents();
}

// A window trained `steps` steps, shown at the size screenshots use.
struct Trained {
    MainWindow window{"spirals-amp-fp16", false};
    explicit Trained(int steps) {
        window.resize(1600, 1000);
        window.show();
        settle();
        window.session().step(steps);
        window.session().wait_until_idle();
    }
};

QValueAxis* step_axis(QWidget* panel) {
    auto* view = panel->findChild<QChartView*>();
    return view ? qobject_cast<QValueAxis*>(view->chart()->axes(Qt::Horizontal).value(0)) : nullptr;
}

TEST(FrameWork, PanelOnAHiddenTabWaitsThenCatchesUpWhenShown) {
    Trained t(30);
    std::map<QString, std::int64_t> updated;  // panel id -> step of the snapshot it was given
    t.window.route_panel_updates([&](Panel& p, const plab::SessionSnapshot& s) {
        updated[p.id()] = s.step;
        p.show_snapshot(s);
    });
    t.window.refresh();
    // Loss and divergence share a place; loss is the tab in front.
    EXPECT_EQ(updated.count("loss"), 1u);
    EXPECT_EQ(updated.count("histograms"), 1u);
    EXPECT_EQ(updated.count("divergence"), 0u) << "a panel behind another tab was updated";
    EXPECT_EQ(updated.count("decision"), 0u);

    updated.clear();
    t.window.show_panel(t.window.panel("divergence"));
    settle();
    ASSERT_EQ(updated.count("divergence"), 1u) << "the panel did not catch up when its tab was raised";
    EXPECT_EQ(updated["divergence"], 30);
    bool shows_step = false;  // its summary names the latest step
    for (LiveText* text : t.window.panel("divergence")->findChildren<LiveText*>())
        shows_step = shows_step || text->text().startsWith("step 30:");
    EXPECT_TRUE(shows_step);
}

// Counts the layout requests a widget gets.
struct LayoutRequests : QObject {
    int count = 0;
    bool eventFilter(QObject*, QEvent* e) override {
        count += e->type() == QEvent::LayoutRequest;
        return false;
    }
};

TEST(FrameWork, LiveTextAsksForALayoutOnlyWhenItNoLongerFits) {
    QWidget box;
    auto* layout = new QVBoxLayout(&box);
    auto* text = new LiveText(LiveText::Wrap::none, &box);
    layout->addWidget(text);
    box.resize(400, 100);
    text->set_text("loss 0.0947");
    box.show();
    settle();
    LayoutRequests requests;
    box.installEventFilter(&requests);
    text->set_text("loss 0.0948");
    text->set_text("loss 0.1");
    settle();
    EXPECT_EQ(requests.count, 0) << "a shorter or same-width text laid the box out again";
    EXPECT_EQ(text->text(), "loss 0.1");
    const QString wide(80, QChar('m'));  // wider than the box
    text->set_text(wide);
    settle();
    EXPECT_GE(requests.count, 1);
    EXPECT_EQ(text->minimumSizeHint().width(), text->fontMetrics().horizontalAdvance(wide));
}

TEST(FrameWork, WrappedLiveTextIsAsTallAsItsLines) {
    LiveText text(LiveText::Wrap::words);
    const QFontMetrics fm = text.fontMetrics();
    text.set_text("alpha beta");
    const int wide = fm.horizontalAdvance("alpha beta") + 10;
    const int narrow = fm.horizontalAdvance("alpha ") + 2;  // "beta" goes to a second line
    EXPECT_EQ(text.heightForWidth(wide), fm.height());
    EXPECT_NEAR(text.heightForWidth(narrow), 2 * fm.height(), 1);
    text.set_text(" beta", "alpha");  // a bold lead-in is part of the text
    EXPECT_EQ(text.text(), "alpha beta");
}

TEST(FrameWork, CountersShowTheirWholeText) {
    Trained t(20);  // histograms every 10 steps
    t.window.refresh();
    settle();
    int cells = 0;
    for (LiveText* cell : t.window.panel("histograms")->findChildren<LiveText*>()) {
        if (!cell->isVisible() || !cell->text().endsWith('%')) continue;
        ++cells;
        EXPECT_GE(cell->width(), cell->fontMetrics().horizontalAdvance(cell->text())) << cell->text().toStdString();
        EXPECT_GE(cell->height(), cell->fontMetrics().height()) << cell->text().toStdString();
    }
    EXPECT_EQ(cells, 14);  // FP16 and BF16 rows, seven percentages each (the twin flush among them)
}

TEST(FrameWork, GrowthTrackerReadsTheLatestStep) {
    Trained t(37);
    t.window.refresh();
    const auto s = t.window.session().snapshot();
    const plab::StepRecord* last = s->main.log.latest();
    ASSERT_NE(last, nullptr);
    ASSERT_GT(s->main.config->scaler.growth_interval, last->growth_tracker);
    EXPECT_EQ(t.window.scale_panel()->tracker_text().toStdString(),
              std::to_string(last->growth_tracker) + " / " + std::to_string(s->main.config->scaler.growth_interval));
}

TEST(FrameWork, StepAxisMovesInStepsOnlyWhileLive) {
    Trained t(100);
    const auto s = t.window.session().snapshot();
    plab::qt::LossPanel loss;
    loss.resize(800, 450);
    QValueAxis* x = step_axis(&loss);
    ASSERT_NE(x, nullptr);
    loss.set_live(true);
    loss.show_snapshot(*s);
    // Steps 0..100 live: headroom 10, grain 10 -> 110.
    EXPECT_DOUBLE_EQ(x->min(), 0);
    EXPECT_DOUBLE_EQ(x->max(), 110);
    loss.set_live(false);
    loss.show_snapshot(*s);
    EXPECT_DOUBLE_EQ(x->max(), 100);  // at rest: the data's exact range
}

plab::HistogramView histogram(const std::string& title, double y_max) {
    plab::HistogramView v;
    v.title = title;
    v.bars = {{0, 1, 5, y_max}};
    v.y_max = y_max;
    return v;
}

TEST(FrameWork, HistogramTopHoldsWhileLiveAndFollowsAnotherTensorAtOnce) {
    plab::qt::HistogramChart chart(false, [](const plab::HistBar&, bool) {}, [](const plab::HistBar&) {});
    chart.resize(640, 420);  // tall enough for six labels: the room below is the chart's own
    chart.show();
    QApplication::processEvents();
    auto* y = qobject_cast<QValueAxis*>(chart.chart()->axes(Qt::Vertical).value(0));
    ASSERT_NE(y, nullptr);
    chart.show_view(histogram("fc1 · weight grad · scaled", 0.05), -4, 4, 0.05, false);
    // At rest: 8% above the highest bar (0.054), up to the next round tick: every 0.02 (0.01 would
    // take seven ticks to 0.06, one more than room for six): 0.06.
    EXPECT_NEAR(y->max(), 0.06, 1e-12);
    EXPECT_NEAR(y->tickInterval(), 0.02, 1e-12);
    // Live: 0.054 plus 10% headroom (grain 0.005): 0.0594 -> 0.06; a lower histogram keeps it.
    chart.show_view(histogram("fc1 · weight grad · scaled", 0.05), -4, 4, 0.05, true);
    EXPECT_NEAR(y->max(), 0.06, 1e-12);
    chart.show_view(histogram("fc1 · weight grad · scaled", 0.02), -4, 4, 0.02, true);
    EXPECT_NEAR(y->max(), 0.06, 1e-12);
    // Another layer: its own range at once. 0.0216 + 0.00216 (grain 0.002): 0.02376 -> 0.024,
    // then up to the next tick (every 0.005): 0.025.
    chart.show_view(histogram("fc2 · weight grad · scaled", 0.02), -4, 4, 0.02, true);
    EXPECT_NEAR(y->max(), 0.025, 1e-12);
    EXPECT_NEAR(y->tickInterval(), 0.005, 1e-12);
}

// Rows of colour c in column x of the image.
int rows_of(const QImage& img, int x, QColor c) {
    int n = 0;
    for (int y = 0; y < img.height(); ++y) n += img.pixelColor(x, y) == c;
    return n;
}

TEST(FrameWork, WideLinesKeepTheirWidth) {
    // A 2- and a 3-pixel line, horizontal and vertical, drawn by SeriesItem (a square brush swept along them).
    QChartView view;
    auto* chart = new QChart();
    chart->legend()->hide();
    auto* x = new QValueAxis();
    auto* y = new QValueAxis();
    chart->addAxis(x, Qt::AlignBottom);
    chart->addAxis(y, Qt::AlignLeft);
    x->setRange(0, 100);
    y->setRange(0, 100);
    x->setGridLineVisible(false);
    y->setGridLineVisible(false);
    view.setChart(chart);
    view.resize(500, 400);
    view.show();
    settle();
    const QColor red(220, 0, 0), blue(0, 0, 220);
    for (auto [colour, width, points] : {std::tuple{red, 2, std::vector<plab::XY>{{10, 30}, {90, 30}, {90, 90}}},
                                         std::tuple{blue, 3, std::vector<plab::XY>{{10, 60}, {50, 60}}}}) {
        auto* s = new QLineSeries();
        QPen pen(colour);
        pen.setWidth(width);
        s->setPen(pen);
        plab::qt::add_line(chart, s, x, y).item->set_points(points);
    }
    settle();
    QImage img(view.size(), QImage::Format_RGB32);
    QPainter painter(&img);
    view.render(&painter);
    painter.end();
    const QPoint mid = view.mapFromScene(chart->mapToScene(chart->mapToPosition({50, 30})));
    EXPECT_EQ(rows_of(img, mid.x() - 40, red), 2);   // the horizontal stretch of the red line
    EXPECT_EQ(rows_of(img, mid.x() - 40, blue), 3);
    int red_columns = 0;  // across the vertical stretch
    const QPoint up = view.mapFromScene(chart->mapToScene(chart->mapToPosition({90, 60})));
    for (int dx = -5; dx <= 5; ++dx) red_columns += img.pixelColor(up.x() + dx, up.y()) == red;
    EXPECT_EQ(red_columns, 2);
}

}  // namespace

namespace {

// The decision maps (the panel's widgets at the maps' minimum size), in order.
std::vector<QWidget*> decision_maps(QWidget* panel) {
    std::vector<QWidget*> maps;
    for (QWidget* w : panel->findChildren<QWidget*>())
        if (w->minimumSize() == QSize(160, 180)) maps.push_back(w);
    return maps;
}

TEST(FrameWork, DecisionMapsTakeTheArrangementWithTheLargestSquares) {
    Trained t(200);  // the workbench takes a decision grid every 200 steps
    const auto s = t.window.session().snapshot();
    plab::qt::DecisionPanel panel(200);
    panel.resize(800, 450);
    panel.show();
    panel.show_snapshot(*s);
    settle();
    std::vector<QWidget*> maps = decision_maps(&panel);
    ASSERT_EQ(maps.size(), 3u);
    // Wide and short: a row, the squares bound by the width.
    EXPECT_EQ(maps[0]->y(), maps[1]->y());
    EXPECT_EQ(maps[1]->y(), maps[2]->y());
    const int row_width = maps[0]->width();
    EXPECT_LT(row_width, 800 / 3);
    // Narrow and tall: a column, each map wider than in the row.
    panel.resize(420, 1200);
    settle();
    EXPECT_EQ(maps[0]->x(), maps[1]->x());
    EXPECT_LT(maps[0]->y(), maps[1]->y());
    EXPECT_LT(maps[1]->y(), maps[2]->y());
    EXPECT_GT(maps[0]->width(), row_width);
}

}  // namespace
