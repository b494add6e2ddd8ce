#include "ui/qt/live_text.h"

#include <QAction>
#include <QClipboard>
#include <QEvent>
#include <QGuiApplication>
#include <QPainter>
#include <QTextOption>
#include <cmath>

namespace plab::qt {

LiveText::LiveText(Wrap wrap, QWidget* parent) : QWidget(parent), wrap_(wrap) {
    QSizePolicy policy(QSizePolicy::Preferred, QSizePolicy::Preferred);
    policy.setHeightForWidth(wrap_ == Wrap::words);
    setSizePolicy(policy);
}

void LiveText::set_text(const QString& text, const QString& lead) {
    if (text == text_ && lead == lead_) return;
    text_ = text;
    lead_ = lead;
    layout_width_ = -1;
    if (!fits()) updateGeometry();
    update();
}

void LiveText::add_copy_action() {
    auto* copy = new QAction("Copy", this);
    connect(copy, &QAction::triggered, this, [this] { QGuiApplication::clipboard()->setText(text()); });
    addAction(copy);
    setContextMenuPolicy(Qt::ActionsContextMenu);
}

void LiveText::set_colour(const QColor& colour) {
    if (palette().color(QPalette::WindowText) == colour) return;
    QPalette p = palette();
    p.setColor(QPalette::WindowText, colour);
    setPalette(p);
}

// Whether the text, laid out now, fits the place the last layout gave it:
// on one line, not wider; wrapped, as many lines as it has room for.
bool LiveText::fits() {
    laid_out();
    if (wrap_ == Wrap::none) return std::ceil(layout_size_.width()) <= width();
    return std::max(fontMetrics().height(), static_cast<int>(std::ceil(layout_size_.height()))) == height();
}

const QTextLayout& LiveText::laid_out() {
    if (layout_width_ != width()) {
        layout_size_ = lay_out(layout_, width());
        layout_width_ = width();
    }
    return layout_;
}

QSizeF LiveText::lay_out(QTextLayout& layout, int width) const {
    layout.setText(lead_ + text_);
    layout.setFont(font());
    // The formats stay from the last text: a lead that went away must take its bold with it.
    layout.clearFormats();
    if (!lead_.isEmpty()) {
        QTextCharFormat bold;
        bold.setFontWeight(QFont::Bold);
        layout.setFormats({QTextLayout::FormatRange{0, static_cast<int>(lead_.size()), bold}});
    }
    QTextOption option;
    option.setWrapMode(wrap_ == Wrap::words ? QTextOption::WordWrap : QTextOption::NoWrap);
    layout.setTextOption(option);
    layout.beginLayout();
    qreal y = 0, w = 0;
    for (QTextLine line = layout.createLine(); line.isValid(); line = layout.createLine()) {
        // One line: as wide as it needs (a line is laid out only once it is given a width).
        line.setLineWidth(wrap_ == Wrap::words ? std::max(1, width) : 1e6);
        line.setPosition(QPointF(0, y));
        y += line.height();
        w = std::max(w, line.naturalTextWidth());
    }
    layout.endLayout();
    return {w, y};
}

QSize LiveText::one_line_size() const {
    QTextLayout layout;
    const QSizeF size = lay_out(layout, 0);
    return {static_cast<int>(std::ceil(size.width())), std::max(fontMetrics().height(), static_cast<int>(std::ceil(size.height())))};
}

int LiveText::heightForWidth(int width) const {
    if (wrap_ == Wrap::none) return one_line_size().height();
    QTextLayout layout;
    return std::max(fontMetrics().height(), static_cast<int>(std::ceil(lay_out(layout, width).height())));
}

QSize LiveText::sizeHint() const {
    if (wrap_ == Wrap::none) return one_line_size();
    // Wide enough for a short caption on one line; a layout gives it its panel's width.
    const int width = fontMetrics().averageCharWidth() * 40;
    return {width, heightForWidth(width)};
}

// One line is as wide as its text (as a QLabel's); wrapped text is narrow,
// so that it wraps rather than hold its panel open.
QSize LiveText::minimumSizeHint() const {
    if (wrap_ == Wrap::none) return one_line_size();
    return {fontMetrics().averageCharWidth() * 8, fontMetrics().height()};
}

void LiveText::paintEvent(QPaintEvent*) {
    const QTextLayout& layout = laid_out();
    QPainter painter(this);
    painter.setPen(palette().color(QPalette::WindowText));
    // Centred in its height, as a QLabel's text is (by half a pixel when the spare height is odd).
    layout.draw(&painter, QPointF(0, std::max(0.0, (height() - layout_size_.height()) / 2)));
}

void LiveText::changeEvent(QEvent* event) {
    if (event->type() == QEvent::FontChange) layout_width_ = -1;  // laid out in the old font
    QWidget::changeEvent(event);
}

}  // namespace plab::qt
