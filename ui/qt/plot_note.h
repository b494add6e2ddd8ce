#pragma once
// A line of text inside a chart's plot area, kept in place as the plot moves
// or resizes: what the plot cannot show as data (a histogram with no finite
// value, layers whose value is not finite). Hidden while its text is empty;
// drawn on a veil of the chart's background, so a line under it does not
// cross the letters.
#include <QChart>
#include <QColor>
#include <QGraphicsSimpleTextItem>

namespace plab::qt {

class PlotNote : public QGraphicsSimpleTextItem {
public:
    // `where`: Qt::AlignCenter, or Qt::AlignTop | Qt::AlignLeft (a few pixels in from the corner).
    PlotNote(QChart* chart, Qt::Alignment where, double points, const QColor& colour);
    void set_note(const QString& text);
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    void place();

    QChart* chart_;
    Qt::Alignment where_;
};

}  // namespace plab::qt
