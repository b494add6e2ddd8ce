#include "ui/qt/chart_kit.h"

#include <QApplication>
#include <QFont>
#include <QFontMetrics>
#include <QLegend>
#include <QPalette>
#include <QStyle>
#include <algorithm>

#include "ui/present/axis_ticks.h"
#include "ui/qt/theme_style.h"

namespace plab::qt {

namespace {

Theme make_theme(bool dark) {
    Theme t;
    t.dark = dark;
    if (dark) {
        t.window = QColor(0x1e, 0x21, 0x26);
        t.text = QColor(0xe6, 0xe6, 0xe6);
        t.grid = QColor(0x3a, 0x3f, 0x47);
        t.amp = QColor(0x4f, 0xa3, 0xff);
        t.twin = QColor(0xff, 0xa6, 0x3d);
    } else {
        t.window = QColor(0xfb, 0xfb, 0xfc);
        t.text = QColor(0x20, 0x22, 0x26);
        t.grid = QColor(0xdd, 0xdf, 0xe3);
        t.amp = QColor(0x1f, 0x6f, 0xd1);
        t.twin = QColor(0xd9, 0x6b, 0x00);
    }
    t.fork = dark ? QColor(0x3d, 0xd6, 0xc6) : QColor(0x00, 0x99, 0x88);
    t.overflow = QColor(0xe0, 0x24, 0x24);
    t.backoff = QColor(0xb0, 0x4a, 0xd6);
    t.growth = QColor(0x1f, 0xa8, 0x4f);
    t.edit = dark ? QColor(0xf0, 0xd0, 0x40) : QColor(0x9a, 0x7b, 0x00);
    return t;
}

Theme& current() {
    static Theme t = make_theme(false);
    return t;
}

QPalette palette_for(const Theme& t) {
    if (!t.dark) return QApplication::style() ? QApplication::style()->standardPalette() : QPalette();
    QPalette p;
    p.setColor(QPalette::Window, t.window);
    p.setColor(QPalette::WindowText, t.text);
    p.setColor(QPalette::Base, QColor(0x16, 0x18, 0x1c));
    p.setColor(QPalette::AlternateBase, t.window);
    p.setColor(QPalette::Text, t.text);
    p.setColor(QPalette::Button, QColor(0x2a, 0x2e, 0x35));
    p.setColor(QPalette::ButtonText, t.text);
    p.setColor(QPalette::Highlight, t.amp);
    p.setColor(QPalette::HighlightedText, Qt::white);
    p.setColor(QPalette::ToolTipBase, t.window);
    p.setColor(QPalette::ToolTipText, t.text);
    // Disabled controls in grey: setColor(role, ...) sets every group, so a
    // disabled button read as enabled.
    const QColor dim(0x70, 0x76, 0x80);
    for (QPalette::ColorRole role : {QPalette::WindowText, QPalette::Text, QPalette::ButtonText})
        p.setColor(QPalette::Disabled, role, dim);
    p.setColor(QPalette::Disabled, QPalette::Button, t.window);
    p.setColor(QPalette::Disabled, QPalette::Base, t.window);
    return p;
}

}  // namespace

const Theme& theme() { return current(); }

void set_dark_theme(bool dark) {
    const double scale = current().scale;
    current() = make_theme(dark);
    current().scale = scale;
    if (!qApp) return;
    if (!dynamic_cast<ThemeStyle*>(qApp->style())) qApp->setStyle(new ThemeStyle());
    qApp->setPalette(palette_for(current()));
}

void set_projector(bool on) {
    current().scale = on ? kProjectorScale : 1.0;
    if (!qApp) return;
    static const QFont normal = QApplication::font();  // as the platform gave it, before any scaling
    QFont f = normal;
    f.setPointSizeF(normal.pointSizeF() * current().scale);
    QApplication::setFont(f);
}

bool projector() { return current().scale != 1.0; }
double font_points(double points) { return points * current().scale; }
double line_width(double width) { return width * current().scale; }

QChart* make_chart() {
    auto* chart = new QChart();
    const Theme& t = theme();
    chart->setBackgroundBrush(t.window);
    chart->setBackgroundRoundness(0);
    chart->setMargins(QMargins(4, 4, 4, 4));
    chart->legend()->setAlignment(Qt::AlignBottom);
    chart->legend()->setLabelColor(t.text);
    QFont legend = chart->legend()->font();
    legend.setPointSizeF(font_points(11));
    chart->legend()->setFont(legend);
    chart->setAnimationOptions(QChart::NoAnimation);
    return chart;
}

QChartView* make_chart_view(QChart* chart, QWidget* parent) {
    auto* view = new QChartView(chart, parent);
    view->setRenderHint(QPainter::Antialiasing, false);
    view->setMinimumSize(320, 160);  // two charts and their controls stack within a small screen
    return view;
}

void style_axis(QAbstractAxis* axis, const QString& title) {
    const Theme& t = theme();
    axis->setTitleText(title);
    QFont f = axis->labelsFont();
    f.setPointSizeF(font_points(11));
    axis->setLabelsFont(f);
    f.setPointSizeF(font_points(11.5));
    axis->setTitleFont(f);
    axis->setLabelsColor(t.text);
    axis->setTitleBrush(t.text);
    axis->setGridLineColor(t.grid);
    axis->setLinePenColor(t.grid);
}

QValueAxis* make_value_axis(const QString& title, QChart* chart, Qt::Alignment where) {
    auto* axis = new QValueAxis(chart);
    style_axis(axis, title);
    chart->addAxis(axis, where);
    return axis;
}

void set_step_range(QValueAxis* x, double lo, double hi) { set_ticked_range(x, lo, hi, tick_interval(lo, hi, projector() ? 4 : 7, 1)); }

void set_ticked_range(QValueAxis* axis, double lo, double hi, double interval) {
    // Qt Charts makes a graphics item per tick at every change: the new
    // range under the old interval (0..100000 steps at the interval of 0..13)
    // would make 10^5 of them, for seconds and hundreds of MB. So a coarser
    // interval goes in before the wider range, a finer one after the narrower.
    // (Fixed ticks ignore the interval, so it can go in before they switch.)
    const bool dynamic = axis->tickType() == QValueAxis::TicksDynamic;
    if (!dynamic || interval > axis->tickInterval()) axis->setTickInterval(interval);
    if (axis->min() != lo || axis->max() != hi) axis->setRange(lo, hi);
    if (!dynamic) {
        axis->setTickAnchor(0);
        axis->setTickType(QValueAxis::TicksDynamic);
    }
    if (axis->tickInterval() != interval) axis->setTickInterval(interval);
    const QString format = QString("%.%1f").arg(tick_decimals(interval));
    if (axis->labelFormat() != format) axis->setLabelFormat(format);
}

QLabel* heading_label(QWidget* parent) {
    auto* label = new QLabel(parent);
    QFont f = label->font();
    f.setPointSizeF(font_points(14));
    f.setBold(true);
    label->setFont(f);
    label->setWordWrap(true);
    return label;
}

QFont body_font(QFont base) {
    base.setPointSizeF(font_points(12));
    return base;
}

QLabel* body_label(QWidget* parent) {
    auto* label = new QLabel(parent);
    label->setFont(body_font(label->font()));
    label->setWordWrap(true);
    label->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return label;
}

void set_points(QXYSeries* series, const std::vector<XY>& points) {
    QList<QPointF> list;
    list.reserve(static_cast<qsizetype>(points.size()));
    for (const XY& p : points) list.append(QPointF(p.x, p.y));
    series->replace(list);
}

int plot_columns(const QChartView* view) {
    // One column per two pixels: a min/max stroke per column looks the same,
    // and Qt Charts' per-point path work (most of a redraw) halves.
    const QChart* chart = view->chart();
    const int width = chart ? static_cast<int>(chart->plotArea().width()) : view->width();
    return width / 2 > 16 ? width / 2 : 16;
}

QFont fitted_font(QFont font, const QString& text, int width, double least) {
    const double smallest = font.pointSizeF() * least;
    while (QFontMetrics(font).horizontalAdvance(text) > width && font.pointSizeF() * 0.9 >= smallest)
        font.setPointSizeF(font.pointSizeF() * 0.9);
    return font;
}

void fit_axis_title(QAbstractAxis* axis, const QStringList& titles, double room) {
    const QFontMetricsF metrics(axis->titleFont());
    QString fitting;
    for (const QString& title : titles)
        if (metrics.horizontalAdvance(title) <= room) {
            fitting = title;
            break;
        }
    if (axis->titleText() != fitting) axis->setTitleText(fitting);  // an unchanged title: no new layout
}

int vertical_label_room(const QChart* chart, const QFont& labels) {
    const double line = QFontMetricsF(labels).height() * 1.6;
    return std::max(2, static_cast<int>(chart->plotArea().height() / line));
}

}  // namespace plab::qt
