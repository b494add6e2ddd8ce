// SeriesItem draws a chart's series itself: its points must land where Qt
// Charts' own mapping puts them (on value and log axes), and hovering a
// marker must report that marker's data point.
#include <gtest/gtest.h>

#include <QChartView>
#include <QImage>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QPainter>
#include <QScatterSeries>
#include <QTest>
#include <QValueAxis>
#include <optional>

#include "ui/qt/series_item.h"

namespace {

using plab::XY;
using plab::qt::SeriesItem;

struct Plot {
    QChartView view;
    QChart* chart = new QChart();
    QValueAxis* x = new QValueAxis();
    QAbstractAxis* y;

    explicit Plot(QAbstractAxis* y_axis) : y(y_axis) {
        chart->setAnimationOptions(QChart::NoAnimation);
        chart->legend()->hide();
        chart->addAxis(x, Qt::AlignBottom);
        chart->addAxis(y, Qt::AlignLeft);
        view.setChart(chart);
        view.resize(640, 400);
        view.show();
        QApplication::processEvents();
    }
    QImage image() {
        QApplication::processEvents();
        QImage img(view.size(), QImage::Format_ARGB32);
        img.fill(Qt::white);
        QPainter p(&img);
        view.render(&p);
        return img;
    }
    // Where Qt Charts itself puts a data point, in view pixels.
    QPoint pixel_of(const QPointF& data, QAbstractSeries* s) {
        return view.mapFromScene(chart->mapToScene(chart->mapToPosition(data, s)));
    }
};

// True if a pixel within `r` of p has (nearly) the colour c.
bool colour_near(const QImage& img, QPoint p, QColor c, int r = 2) {
    for (int dy = -r; dy <= r; ++dy)
        for (int dx = -r; dx <= r; ++dx) {
            const QColor got = img.pixelColor(p.x() + dx, p.y() + dy);
            if (std::abs(got.red() - c.red()) + std::abs(got.green() - c.green()) + std::abs(got.blue() - c.blue()) < 30)
                return true;
        }
    return false;
}

QLineSeries* line_series(QColor colour) {
    auto* s = new QLineSeries();
    QPen pen(colour);
    pen.setWidthF(3);
    s->setPen(pen);
    return s;
}

TEST(SeriesItem, LineLandsWhereQtChartsMapsItsPoints) {
    auto* y = new QValueAxis();
    Plot plot(y);
    plot.x->setRange(0, 10);
    y->setRange(-50, 150);
    const QColor red(220, 0, 0);
    const plab::qt::ChartLine line = plab::qt::add_line(plot.chart, line_series(red), plot.x, y);
    line.item->set_points({{1, 0}, {5, 100}, {9, -20}});
    const QImage img = plot.image();
    for (const QPointF d : {QPointF(1, 0), QPointF(5, 100), QPointF(9, -20), QPointF(3, 50)})
        EXPECT_TRUE(colour_near(img, plot.pixel_of(d, line.series), red)) << d.x() << "," << d.y();
    // Nothing where the line is not.
    EXPECT_FALSE(colour_near(img, plot.pixel_of(QPointF(5, 0), line.series), red));
}

TEST(SeriesItem, LogAxisMapsInLogarithms) {
    auto* y = new QLogValueAxis();
    Plot plot(y);
    plot.x->setRange(0, 10);
    y->setRange(1, 1000);
    const QColor blue(0, 0, 220);
    const plab::qt::ChartLine line = plab::qt::add_line(plot.chart, line_series(blue), plot.x, y);
    line.item->set_points({{2, 10}, {8, 10}});  // a third of the way up
    const QImage img = plot.image();
    EXPECT_TRUE(colour_near(img, plot.pixel_of(QPointF(5, 10), line.series), blue));
    EXPECT_FALSE(colour_near(img, plot.pixel_of(QPointF(5, 31.6), line.series), blue));  // the linear guess
}

TEST(SeriesItem, HiddenSeriesDrawsNothing) {
    auto* y = new QValueAxis();
    Plot plot(y);
    plot.x->setRange(0, 10);
    y->setRange(0, 10);
    const QColor green(0, 180, 0);
    const plab::qt::ChartLine line = plab::qt::add_line(plot.chart, line_series(green), plot.x, y);
    line.item->set_points({{0, 5}, {10, 5}});
    line.series->setVisible(false);
    EXPECT_FALSE(colour_near(plot.image(), plot.pixel_of(QPointF(5, 5), line.series), green));
}

TEST(SeriesItem, HoveringAMarkerReportsItsDataPoint) {
    auto* y = new QValueAxis();
    Plot plot(y);
    plot.x->setRange(0, 100);
    y->setRange(0, 10);
    auto* markers = new QScatterSeries();
    markers->setColor(QColor(200, 0, 200));
    plot.chart->addSeries(markers);
    markers->attachAxis(plot.x);
    markers->attachAxis(y);
    auto* item = new SeriesItem(plot.chart, markers, SeriesItem::Style::circles, 12);
    std::optional<XY> hovered;
    bool left = false;
    item->on_hover([&](const XY& p, bool state) {
        if (state) hovered = p;
        else left = true;
    });
    item->set_points({{20, 2}, {60, 7}});
    const QImage img = plot.image();  // paints, so the item knows where its markers are
    EXPECT_TRUE(colour_near(img, plot.pixel_of(QPointF(60, 7), markers), QColor(200, 0, 200)));
    QTest::mouseMove(plot.view.viewport(), plot.pixel_of(QPointF(60, 7), markers) + QPoint(2, 1));
    QApplication::processEvents();
    ASSERT_TRUE(hovered.has_value());
    EXPECT_EQ(hovered->x, 60);
    EXPECT_EQ(hovered->y, 7);
    QTest::mouseMove(plot.view.viewport(), plot.pixel_of(QPointF(40, 5), markers));  // between the two
    QApplication::processEvents();
    EXPECT_TRUE(left);
}

}  // namespace
