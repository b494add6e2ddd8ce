// A step axis that jumps from a short range to a long one (a panel shown
// after 100k steps trained out of sight) must never pass through the long
// range at the short range's tick interval: Qt Charts makes a graphics item
// per tick on each change, and 0..100000 at an interval of 2 is 50,000 of
// them. Counted at every range change, as Qt makes them.
#include <gtest/gtest.h>

#include <QChart>
#include <QChartView>
#include <QGraphicsScene>
#include <QLineSeries>
#include <QValueAxis>
#include <algorithm>

#include "ui/qt/chart_kit.h"

namespace {

TEST(ChartKit, AStepAxisNeverHoldsTensOfThousandsOfTicks) {
    QChartView view;
    auto* chart = new QChart();
    view.setChart(chart);
    view.resize(800, 400);
    auto* series = new QLineSeries(chart);
    series->append(0, 0);
    chart->addSeries(series);
    QValueAxis* x = plab::qt::make_value_axis("step", chart, Qt::AlignBottom);
    series->attachAxis(x);
    view.show();

    qsizetype most_items = 0;
    QObject::connect(x, &QValueAxis::rangeChanged, [&] { most_items = std::max(most_items, view.scene()->items().size()); });
    QObject::connect(x, &QValueAxis::tickIntervalChanged,
                     [&] { most_items = std::max(most_items, view.scene()->items().size()); });
    plab::qt::set_step_range(x, 0, 13);
    const qsizetype short_range = view.scene()->items().size();
    plab::qt::set_step_range(x, 0, 100000);  // 0 20000 ... 100000
    plab::qt::set_step_range(x, 0, 13);      // and back
    EXPECT_LT(most_items, short_range + 100) << "items at the short range: " << short_range;
    EXPECT_EQ(x->tickInterval(), 2.0);
    EXPECT_EQ(x->max(), 13.0);
}

}  // namespace
