#include "ui/qt/plot_note.h"

#include <QBrush>
#include <QFont>
#include <QPainter>

#include "ui/qt/chart_kit.h"

namespace plab::qt {

PlotNote::PlotNote(QChart* chart, Qt::Alignment where, double points, const QColor& colour)
    : QGraphicsSimpleTextItem(chart), chart_(chart), where_(where) {
    QFont f = font();
    f.setPointSizeF(font_points(points));
    setFont(f);
    setBrush(colour);
    setZValue(10);  // over the series
    setVisible(false);
    QObject::connect(chart, &QChart::plotAreaChanged, chart, [this] { place(); });
}

void PlotNote::set_note(const QString& text) {
    if (text != this->text()) setText(text);
    setVisible(!text.isEmpty());
    place();
}

void PlotNote::paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) {
    QColor veil = chart_->backgroundBrush().color();
    veil.setAlpha(215);
    painter->fillRect(boundingRect().adjusted(-3, -1, 3, 1), veil);
    QGraphicsSimpleTextItem::paint(painter, option, widget);
}

void PlotNote::place() {
    const QRectF area = chart_->plotArea();
    const QRectF box = boundingRect();
    if (where_ & Qt::AlignLeft)
        setPos(area.topLeft() + QPointF(6, 4));
    else
        setPos(area.center() - QPointF(box.width() / 2, box.height() / 2));
}

}  // namespace plab::qt
