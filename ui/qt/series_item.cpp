#include "ui/qt/series_item.h"

#include <QChart>
#include <QGraphicsSceneHoverEvent>
#include <QLogValueAxis>
#include <QPainter>
#include <QValueAxis>
#include <cmath>

#include "ui/qt/chart_kit.h"

namespace plab::qt {

namespace {

// Where v lies along an axis, 0 at its min and 1 at its max: linear on a
// value axis, in logarithms on a log axis (non-positive values sit below it).
struct AxisMap {
    bool log = false;
    double lo = 0, span = 1;

    explicit AxisMap(const QAbstractAxis* axis) {
        if (const auto* l = qobject_cast<const QLogValueAxis*>(axis)) {
            log = true;
            lo = std::log(l->min());
            span = std::log(l->max()) - lo;
        } else if (const auto* v = qobject_cast<const QValueAxis*>(axis)) {
            lo = v->min();
            span = v->max() - v->min();
        }
        if (!(span > 0)) span = 1;
    }
    double operator()(double v) const {
        if (log) return v > 0 ? (std::log(v) - lo) / span : -1.0;
        return (v - lo) / span;
    }
};

// A wide line on an aliased painter goes through QStroker (QDashStroker when
// dashed): the whole polyline outlined, joins and all, then the outline
// filled. A min/max column line zigzags, so its outline overlaps itself
// everywhere, and the fill is most of a dense chart's paint (docs/perf.md).
// Such a line is drawn instead as a square brush of its width swept
// along it: one 1-pixel polyline (QPainter's fast cosmetic path) per offset of
// the square. This is the width in whole pixels when that can be done, else 0.
int square_brush_width(const QPen& pen, const QPainter& painter) {
    const double w = pen.widthF();
    const bool whole = w >= 2 && w <= 4 && w == std::floor(w);
    const bool styled = pen.style() == Qt::SolidLine || pen.style() == Qt::DashLine || pen.style() == Qt::DotLine;
    const bool plain = styled && !pen.isCosmetic() && pen.capStyle() == Qt::SquareCap &&
                       !painter.testRenderHint(QPainter::Antialiasing) &&
                       painter.transform().type() <= QTransform::TxTranslate;
    return whole && plain ? static_cast<int>(w) : 0;
}

void draw_square_brush_line(QPainter& painter, const QPolygonF& line, const QPen& pen, int width) {
    QPen thin(pen);
    thin.setWidthF(line_width(1));
    if (pen.style() != Qt::SolidLine) {
        // The pattern is in pen widths. A wide pen's square caps lengthen each
        // dash by its width (half at either end) and shorten each gap as much;
        // the square's sweep already lengthens it by all but one pixel of that.
        QList<qreal> pattern = pen.dashPattern();
        for (qsizetype i = 0; i < pattern.size(); ++i) pattern[i] = pattern[i] * width + (i % 2 == 0 ? 1 : -1);
        thin.setDashPattern(pattern);
        thin.setDashOffset(pen.dashOffset() * width);
    }
    painter.setPen(thin);
    const int first = -width / 2;  // a 2-pixel pen covers the pixel row above its line and the row on it
    for (int dy = first; dy < first + width; ++dy)
        for (int dx = first; dx < first + width; ++dx) painter.drawPolyline(line.translated(dx, dy));
}

}  // namespace

SeriesItem::SeriesItem(QChart* chart, QXYSeries* series, Style style, double marker_px)
    : QGraphicsItem(chart), chart_(chart), series_(series), style_(style), marker_px_(marker_px) {
    setZValue(5);  // over the grid and the chart's own series items
    QObject::connect(chart, &QChart::plotAreaChanged, chart, [this] { prepareGeometryChange(); });
    QObject::connect(series, &QAbstractSeries::visibleChanged, chart, [this] { update(); });
}

void SeriesItem::set_points(const std::vector<XY>& points) {
    points_ = points;
    hovered_index_ = -1;
    update();
}

void SeriesItem::on_hover(Hovered hovered) {
    hovered_ = std::move(hovered);
    setAcceptHoverEvents(static_cast<bool>(hovered_));
}

QRectF SeriesItem::boundingRect() const {
    const double pad = marker_px_;  // markers at the edge reach out by half their width
    return chart_->plotArea().adjusted(-pad, -pad, pad, pad);
}

namespace {

// The line's runs of finite points, each drawn alone: a NaN point is a gap.
template <typename Draw>
void for_each_finite_run(const QPolygonF& line, Draw&& draw) {
    QPolygonF run;
    for (const QPointF& p : line) {
        if (std::isfinite(p.x()) && std::isfinite(p.y())) {
            run.append(p);
            continue;
        }
        if (!run.isEmpty()) draw(run);
        run.clear();
    }
    if (!run.isEmpty()) draw(run);
}

}  // namespace

void SeriesItem::map_points() {
    pixels_.clear();
    const QAbstractAxis* x_axis = nullptr;
    const QAbstractAxis* y_axis = nullptr;
    for (const QAbstractAxis* a : series_->attachedAxes()) (a->orientation() == Qt::Horizontal ? x_axis : y_axis) = a;
    if (!x_axis || !y_axis) return;
    const AxisMap x(x_axis), y(y_axis);
    const QRectF area = chart_->plotArea();
    pixels_.reserve(static_cast<qsizetype>(points_.size()));
    for (const XY& p : points_)
        pixels_.append(QPointF(area.left() + x(p.x) * area.width(), area.bottom() - y(p.y) * area.height()));
}

void SeriesItem::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
    map_points();
    if (!series_->isVisible() || pixels_.isEmpty()) return;
    painter->save();
    painter->setPen(series_->pen());
    if (style_ == Style::line) {
        painter->setClipRect(chart_->plotArea());
        const int width = square_brush_width(series_->pen(), *painter);
        for_each_finite_run(pixels_, [&](const QPolygonF& run) {
            const QRectF span = run.boundingRect();
            if (span.width() < 1 && span.height() < 1) {
                // A lone drawable step between gaps: a dot, where a line would have no length.
                const double r = std::max(3.0, series_->pen().widthF() * 1.5);
                painter->save();
                painter->setPen(Qt::NoPen);
                painter->setBrush(series_->pen().color());
                painter->drawEllipse(span.center(), r, r);
                painter->restore();
            } else if (width)
                draw_square_brush_line(*painter, run, series_->pen(), width);
            else
                painter->drawPolyline(run);
        });
    } else {
        // One marker drawn once, then copied to every point: stroking an
        // ellipse per point costs far more with a thousand evaluation dots
        // (docs/perf.md).
        const QPixmap& marker = marker_sprite(painter->device()->devicePixelRatioF());
        const double half = marker_px_ / 2 + 1;
        // Only markers that show: a point off the axes (a scale of 0 on a
        // log axis maps to -inf) would overflow the raster engine's integers.
        const QRectF shown = chart_->plotArea().adjusted(-half, -half, half, half);
        for (const QPointF& p : pixels_)
            if (std::isfinite(p.x()) && std::isfinite(p.y()) && shown.contains(p))  // contains() takes NaN
                painter->drawPixmap(QPointF(p.x() - half, p.y() - half), marker);
    }
    painter->restore();
}

const QPixmap& SeriesItem::marker_sprite(double device_pixel_ratio) {
    QPen outline = series_->pen();
    outline.setStyle(Qt::SolidLine);  // a dotted line's markers are whole dots
    const QString key = QString("%1 %2 %3 %4 %5")
                            .arg(outline.color().rgba())
                            .arg(outline.widthF())
                            .arg(series_->brush().color().rgba())
                            .arg(marker_px_)
                            .arg(device_pixel_ratio);
    if (key == sprite_key_) return sprite_;
    const double side = marker_px_ + 2;  // the outline's half width on each side
    sprite_ = QPixmap(QSize(static_cast<int>(std::ceil(side * device_pixel_ratio)),
                            static_cast<int>(std::ceil(side * device_pixel_ratio))));
    sprite_.setDevicePixelRatio(device_pixel_ratio);
    sprite_.fill(Qt::transparent);
    QPainter p(&sprite_);
    p.setRenderHint(QPainter::Antialiasing, true);
    p.setPen(outline);
    p.setBrush(series_->brush());
    const QRectF box(1, 1, marker_px_, marker_px_);
    if (style_ == Style::circles)
        p.drawEllipse(box);
    else
        p.drawRect(box);
    sprite_key_ = key;
    return sprite_;
}

// The marker under the mouse: the nearest one within its own radius.
void SeriesItem::hoverMoveEvent(QGraphicsSceneHoverEvent* event) {
    int nearest = -1;
    double best = marker_px_ / 2 + 2;  // a little slack around small markers
    for (qsizetype i = 0; i < pixels_.size() && i < static_cast<qsizetype>(points_.size()); ++i) {
        const QPointF d = pixels_[i] - event->pos();
        const double distance = std::hypot(d.x(), d.y());
        if (distance <= best) {
            best = distance;
            nearest = static_cast<int>(i);
        }
    }
    if (nearest == hovered_index_) return;
    if (hovered_index_ >= 0 && nearest < 0) hovered_(points_[static_cast<std::size_t>(hovered_index_)], false);
    hovered_index_ = nearest;
    if (nearest >= 0) hovered_(points_[static_cast<std::size_t>(nearest)], true);
}

void SeriesItem::hoverLeaveEvent(QGraphicsSceneHoverEvent*) {
    if (hovered_index_ >= 0) hovered_(points_[static_cast<std::size_t>(hovered_index_)], false);
    hovered_index_ = -1;
}

ChartLine add_line(QChart* chart, QXYSeries* series, QAbstractAxis* x, QAbstractAxis* y) {
    chart->addSeries(series);
    series->attachAxis(x);
    series->attachAxis(y);
    return {series, new SeriesItem(chart, series)};
}

void remove_line(ChartLine& line) {
    delete line.marks;
    delete line.item;
    line.series->chart()->removeSeries(line.series);
    delete line.series;
    line = {};
}

}  // namespace plab::qt
