#pragma once
// A series of a chart drawn by one light item in the plot area: a polyline,
// or markers (circles or squares).
//
// It stands in for Qt Charts' own series items where a series is dense: the
// line item rebuilds a stroked outline of the whole line (for hit tests)
// whenever its points or an axis range change, and the scatter item keeps a
// graphics item per point, deleted and made anew as points come and go;
// together most of a redraw's time with 10^5 steps of history. The
// QXYSeries stays in the chart, with its pen, brush and name but no points,
// for the legend entry, the axes it is attached to and its visibility; this
// item draws its points, and reports hovers over markers.
#include <QGraphicsItem>
#include <QPixmap>
#include <QPolygonF>
#include <QString>
#include <QXYSeries>
#include <functional>
#include <vector>

#include "ui/present/plot_columns.h"

namespace plab::qt {

class SeriesItem : public QGraphicsItem {
public:
    enum class Style { line, circles, squares };
    // The data point under the mouse (state true), or that it left (false).
    using Hovered = std::function<void(const XY& point, bool state)>;

    // `series` is in `chart` and attached to its two axes (value or log).
    // Markers are `marker_px` wide and filled with the series' brush,
    // outlined with its pen; a line is drawn with its pen.
    SeriesItem(QChart* chart, QXYSeries* series, Style style = Style::line, double marker_px = 0);

    // Data coordinates; for a line, in order of x.
    void set_points(const std::vector<XY>& points);
    void on_hover(Hovered hovered);  // markers only

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

protected:
    void hoverMoveEvent(QGraphicsSceneHoverEvent* event) override;
    void hoverLeaveEvent(QGraphicsSceneHoverEvent* event) override;

private:
    void map_points();  // points_ to pixels_ in the chart's current plot area and axis ranges
    // The marker as drawn at every point, made again when the series' pen,
    // brush or the screen's pixel ratio change.
    const QPixmap& marker_sprite(double device_pixel_ratio);

    QChart* chart_;
    QXYSeries* series_;
    Style style_;
    double marker_px_;
    std::vector<XY> points_;
    QPolygonF pixels_;  // as last painted
    Hovered hovered_;
    int hovered_index_ = -1;
    QPixmap sprite_;
    QString sprite_key_;
};

// A line of a chart: the series holds its legend entry, axes and visibility;
// the item draws its points.
struct ChartLine {
    QXYSeries* series = nullptr;
    SeriesItem* item = nullptr;
    SeriesItem* marks = nullptr;  // markers at the same points, for a line that has them
};

// Adds `series` (named and styled) to `chart` on axes x and y, with the item
// that will draw it; the item is deleted with the chart, or by remove_line.
ChartLine add_line(QChart* chart, QXYSeries* series, QAbstractAxis* x, QAbstractAxis* y);
void remove_line(ChartLine& line);

}  // namespace plab::qt
