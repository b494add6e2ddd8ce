// A step axis that jumps from a short range to a long one (a panel shown
// after 100k steps trained out of sight) must never pass through the long
// range at the short range's tick interval: Qt Charts makes a graphics item
// per tick on each change, and 0..100000 at an interval of 2 is 50,000 of
// them. Counted at every range change, as Qt makes them.
#include <gtest/gtest.h>

#include <QChart>
#include <QChartView>
#include <QFont>
#include <QFontMetrics>
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

// A title that does not fit takes a smaller font, 10% at a time, until it
// fits or reaches the least size; one that fits keeps its font.
TEST(ChartKit, AFittedFontShrinksALongTitleToItsRoom) {
    QFont base;
    base.setPointSizeF(18);
    const QString title = "AMP (amp-fp16) \u00b7 step 1200";
    const int wide = QFontMetrics(base).horizontalAdvance(title);
    EXPECT_EQ(plab::qt::fitted_font(base, title, wide).pointSizeF(), 18.0);
    const QFont fitted = plab::qt::fitted_font(base, title, wide * 8 / 10);
    EXPECT_LE(QFontMetrics(fitted).horizontalAdvance(title), wide * 8 / 10);
    EXPECT_LT(fitted.pointSizeF(), 18.0);
    EXPECT_GE(fitted.pointSizeF(), 18.0 * 0.9 * 0.9 * 0.9);  // no smaller than it had to be, give or take hinting
    // Far too narrow: never below two thirds of the size.
    const QFont least = plab::qt::fitted_font(base, title, 10);
    EXPECT_GE(least.pointSizeF(), 12.0);
    EXPECT_LT(least.pointSizeF(), 12.0 / 0.9);
}

// An axis title takes the longest of its forms that fits its room, none when none does.
TEST(ChartKit, AnAxisTitleTakesTheLongestFormThatFits) {
    QChart chart;
    QValueAxis* y = plab::qt::make_value_axis("", &chart, Qt::AlignLeft);
    const QFontMetricsF metrics(y->titleFont());
    const QStringList forms = {"weight distance", "distance"};
    plab::qt::fit_axis_title(y, forms, metrics.horizontalAdvance("weight distance") + 1);
    EXPECT_EQ(y->titleText(), "weight distance");
    plab::qt::fit_axis_title(y, forms, metrics.horizontalAdvance("weight distance") - 1);
    EXPECT_EQ(y->titleText(), "distance");
    plab::qt::fit_axis_title(y, forms, metrics.horizontalAdvance("distance") - 1);
    EXPECT_EQ(y->titleText(), "");
}

}  // namespace
