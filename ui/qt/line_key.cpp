#include "ui/qt/line_key.h"

#include <QPainter>
#include <algorithm>

#include "ui/qt/chart_kit.h"

namespace plab::qt {

namespace {

constexpr int kSample = 30;  // px of line: long enough for a dash pattern to show twice
constexpr int kGap = 6;      // between a sample and its text
constexpr int kSpacing = 14; // between entries

}  // namespace

LineKey::LineKey(QWidget* parent) : QWidget(parent) {
    QFont f = font();
    f.setPointSizeF(font_points(11));
    setFont(f);
    setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Preferred);
}

void LineKey::set_entries(std::vector<KeyEntry> entries) {
    entries_ = std::move(entries);
    updateGeometry();
    update();
}

int LineKey::entry_width(const KeyEntry& e) const {
    QFont f = font();
    f.setBold(e.pen.style() == Qt::NoPen);  // headings are bold
    const int text = QFontMetrics(f).horizontalAdvance(e.text) + 1;
    return e.pen.style() == Qt::NoPen ? text : kSample + kGap + text;
}

std::vector<QRect> LineKey::lay_out(int width) const {
    std::vector<QRect> boxes;
    const int line = fontMetrics().height() + 4;
    int x = 0, y = 0;
    for (const KeyEntry& e : entries_) {
        const int w = entry_width(e);
        if (x > 0 && x + w > width) {
            x = 0;
            y += line;
        }
        boxes.emplace_back(x, y, w, line);
        x += w + kSpacing;
    }
    return boxes;
}

int LineKey::heightForWidth(int width) const {
    const std::vector<QRect> boxes = lay_out(width);
    return boxes.empty() ? 0 : boxes.back().bottom() + 1;
}

QSize LineKey::sizeHint() const {
    int w = 0;
    for (const KeyEntry& e : entries_) w += entry_width(e) + kSpacing;
    return {w, heightForWidth(w)};
}

QSize LineKey::minimumSizeHint() const { return {100, heightForWidth(width() > 0 ? width() : 100)}; }

void LineKey::paintEvent(QPaintEvent*) {
    QPainter p(this);
    const std::vector<QRect> boxes = lay_out(width());
    // Centred line by line, as a chart's legend is.
    std::vector<int> shift(boxes.size(), 0);
    for (std::size_t i = 0; i < boxes.size();) {
        std::size_t end = i;
        while (end < boxes.size() && boxes[end].top() == boxes[i].top()) ++end;
        const int used = boxes[end - 1].right() + 1;
        for (std::size_t k = i; k < end; ++k) shift[k] = std::max(0, (width() - used) / 2);
        i = end;
    }
    for (std::size_t i = 0; i < boxes.size(); ++i) {
        const KeyEntry& e = entries_[i];
        const QRect box = boxes[i].translated(shift[i], 0);
        QRect text_box = box;
        if (e.pen.style() != Qt::NoPen) {
            QPen pen = e.pen;
            pen.setWidthF(std::max(line_width(2), pen.widthF()));  // the key's sample must show its pattern
            pen.setCapStyle(Qt::FlatCap);
            p.setRenderHint(QPainter::Antialiasing, true);
            p.setPen(pen);
            const int y = box.center().y();
            p.drawLine(box.left(), y, box.left() + kSample, y);
            if (e.marker) {
                p.setPen(Qt::NoPen);
                p.setBrush(e.pen.color());
                p.drawEllipse(QPointF(box.left() + kSample / 2.0, y + 0.5), 3.5, 3.5);
            }
            text_box.setLeft(box.left() + kSample + kGap);
        }
        QFont f = font();
        f.setBold(e.pen.style() == Qt::NoPen);
        p.setFont(f);
        p.setPen(palette().color(QPalette::WindowText));
        p.drawText(text_box, Qt::AlignLeft | Qt::AlignVCenter, e.text);
    }
}

}  // namespace plab::qt
