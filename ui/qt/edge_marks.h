#pragma once
// Marks on the top or bottom edge of a chart's plot area, each at a value of
// its x axis with a short label: where a line stops because its values
// cannot be drawn (a NaN loss, a loss of 0 on a log axis). A mark is a
// triangle on the edge and a dotted line across the plot, so the gap in the
// line reads as that event and not as missing data.
#include <QChart>
#include <QColor>
#include <QGraphicsItem>
#include <QString>
#include <QValueAxis>
#include <vector>

namespace plab::qt {

struct EdgeMark {
    double x = 0;
    bool top = true;
    QColor colour;
    QString text;  // "NaN at step 31"
};

class EdgeMarks : public QGraphicsItem {
public:
    EdgeMarks(QChart* chart, QValueAxis* x);
    void set_marks(std::vector<EdgeMark> marks);

    QRectF boundingRect() const override;
    void paint(QPainter* painter, const QStyleOptionGraphicsItem* option, QWidget* widget) override;

private:
    QChart* chart_;
    QValueAxis* x_;
    std::vector<EdgeMark> marks_;
};

}  // namespace plab::qt
