#include "ui/qt/edge_marks.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPolygonF>

#include "ui/qt/chart_kit.h"

namespace plab::qt {

namespace {

constexpr double kTriangle = 9;  // px, the marker's width

}  // namespace

EdgeMarks::EdgeMarks(QChart* chart, QValueAxis* x) : QGraphicsItem(chart), chart_(chart), x_(x) {
    setZValue(8);  // over the lines
    QObject::connect(chart, &QChart::plotAreaChanged, chart, [this] { prepareGeometryChange(); });
}

void EdgeMarks::set_marks(std::vector<EdgeMark> marks) {
    marks_ = std::move(marks);
    update();
}

QRectF EdgeMarks::boundingRect() const { return chart_->plotArea().adjusted(-kTriangle, -kTriangle, kTriangle, kTriangle); }

// Each label beside its triangle, inside the plot (to the left of a mark near
// the right edge); a label that would overlap the one before on its edge is
// left out, the triangle and the line still drawn.
void EdgeMarks::paint(QPainter* painter, const QStyleOptionGraphicsItem*, QWidget*) {
    const QRectF area = chart_->plotArea();
    const double span = x_->max() - x_->min();
    if (marks_.empty() || !(span > 0)) return;
    painter->save();
    QFont font = painter->font();
    font.setPointSizeF(font_points(10));
    font.setBold(true);
    painter->setFont(font);
    const QFontMetricsF metrics(font);
    QRectF last_label[2];  // per edge: bottom, top
    for (const EdgeMark& m : marks_) {
        const double px = area.left() + (m.x - x_->min()) / span * area.width();
        if (px < area.left() - 0.5 || px > area.right() + 0.5) continue;
        const double edge = m.top ? area.top() : area.bottom();
        const double inward = m.top ? 1 : -1;
        painter->setRenderHint(QPainter::Antialiasing, false);
        painter->setPen(QPen(m.colour, line_width(1), Qt::DotLine));
        painter->drawLine(QPointF(px, area.top()), QPointF(px, area.bottom()));
        painter->setRenderHint(QPainter::Antialiasing, true);
        painter->setPen(Qt::NoPen);
        painter->setBrush(m.colour);
        const QPolygonF triangle{QPointF(px - kTriangle / 2, edge), QPointF(px + kTriangle / 2, edge),
                                 QPointF(px, edge + inward * kTriangle)};
        painter->drawPolygon(triangle);
        const QSizeF size = metrics.size(0, m.text);
        const double left = px + 6 + size.width() <= area.right() ? px + 6 : px - 6 - size.width();
        const double top = m.top ? edge + 2 : edge - 2 - size.height();
        const QRectF label(QPointF(left, top), size);
        QRectF& previous = last_label[m.top ? 1 : 0];
        if (previous.isValid() && previous.intersects(label)) continue;
        previous = label;
        painter->setPen(m.colour);
        painter->drawText(label, Qt::AlignLeft | Qt::AlignVCenter, m.text);
    }
    painter->restore();
}

}  // namespace plab::qt
