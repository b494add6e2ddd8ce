#include "ui/qt/histogram_chart.h"

#include <QLegendMarker>
#include <algorithm>
#include <cmath>
#include <utility>

#include "ui/present/axis_ticks.h"
#include "ui/qt/chart_kit.h"

namespace plab::qt {

namespace {

// A rectangle [x0, x1] x [0, top] as an area series (its own two line series).
QAreaSeries* band_series(QChart* chart, const QString& name, QColor colour, int alpha,
                         Qt::BrushStyle style = Qt::SolidPattern) {
    auto* upper = new QLineSeries(chart);
    auto* area = new QAreaSeries(upper);
    area->setName(name);
    colour.setAlpha(alpha);
    area->setBrush(QBrush(colour, style));
    area->setPen(Qt::NoPen);
    chart->addSeries(area);
    return area;
}

QGraphicsSimpleTextItem* band_label(QChart* chart, const QColor& colour) {
    auto* label = new QGraphicsSimpleTextItem(chart);
    QFont f = label->font();
    f.setPointSizeF(font_points(10));
    f.setBold(true);
    label->setFont(f);
    label->setBrush(colour);
    label->setZValue(10);  // over the series
    label->setVisible(false);
    return label;
}

// Unchanged bands are left alone: a replace() has Qt Charts redo the area's path even for the same points.
void set_rect(QAreaSeries* area, double x0, double x1, double top) {
    QLineSeries* upper = area->upperSeries();
    if (!(x1 > x0)) {
        if (upper->count() > 0) upper->clear();
        return;
    }
    const QList<QPointF> corners{{x0, top}, {x1, top}};
    if (upper->points() != corners) upper->replace(corners);
}

// The step outline of the bars: what an area series fills down to zero.
std::vector<XY> outline(const std::vector<HistBar>& bars) {
    std::vector<XY> pts;
    pts.reserve(bars.size() * 2 + 2);
    for (const HistBar& b : bars) {
        pts.push_back({b.log2_lo, b.fraction});
        pts.push_back({b.log2_hi, b.fraction});
    }
    return pts;
}

// Binade labels the x axis has room for: a label such as "-24" needs about
// 40 pixels, and a small chart of all layers is 140 wide at 60 layers.
int x_ticks(int width) {
    if (width < 250) return 3;
    return width < 500 ? 6 : 12;
}

}  // namespace

QColor band_colour(FormatId f) {
    switch (f) {
        case FormatId::fp16: return QColor(0xe0, 0x40, 0x40);
        case FormatId::bf16: return QColor(0x30, 0x90, 0xe0);
        case FormatId::e4m3: return QColor(0x40, 0xb0, 0x60);
        default: return QColor(0xa0, 0x60, 0xd0);
    }
}

HistogramChart::HistogramChart(bool compact, Hovered hovered, Clicked clicked, QWidget* parent)
    : QChartView(make_chart(), parent), compact_(compact), top_(kSteadyTop) {
    QChart* c = chart();
    const Theme& t = theme();
    setRenderHint(QPainter::Antialiasing, false);
    setMinimumSize(compact ? 200 : 320, compact ? 140 : 200);
    for (FormatId f : kRangeFormats) {
        const QString name = QString::fromUtf8(std::string(format_display_name(f)).c_str());
        // Hatched, not a pale fill: the subnormal range reads apart from the flush band next to it.
        bands_.push_back({f, band_series(c, name + " flushes to 0", band_colour(f), 60),
                          band_series(c, name + " subnormal", band_colour(f), 110, Qt::BDiagPattern),
                          band_series(c, name + " overflows", band_colour(f), 60),
                          compact ? nullptr : band_label(c, band_colour(f).darker(115)),
                          compact ? nullptr : band_label(c, band_colour(f).darker(115))});
    }
    outline_ = new QLineSeries(c);
    bars_ = new QAreaSeries(outline_);
    bars_->setName("fraction of values");
    QColor fill = t.amp;
    fill.setAlpha(170);
    bars_->setBrush(fill);
    bars_->setPen(QPen(t.amp.darker(120), line_width(1)));
    c->addSeries(bars_);
    ghost_ = new QLineSeries(c);
    ghost_->setName("FP32 twin (outline)");
    QPen ghost_pen(t.twin, line_width(compact ? 1 : 2), Qt::DashLine);
    ghost_->setPen(ghost_pen);
    c->addSeries(ghost_);
    x_ = make_value_axis(compact ? "" : "log2 |x|  (binades)", c, Qt::AlignBottom);
    y_ = make_value_axis(compact ? "" : "fraction", c, Qt::AlignLeft);
    note_ = new PlotNote(c, Qt::AlignCenter, compact ? 10 : 12, t.text);
    if (compact) {
        c->legend()->hide();
        c->setMargins(QMargins(0, 0, 4, 0));
    }
    for (QAbstractSeries* s : c->series()) {
        s->attachAxis(x_);
        s->attachAxis(y_);
    }
    // The band series are many; the legend keeps the bars and the twin, and the bands' labels say the rest.
    for (QAbstractSeries* s : c->series())
        if (s != bars_ && s != ghost_) c->legend()->markers(s).value(0)->setVisible(false);
    // A new height may hold more or fewer y labels: the view is fitted again (paused, no steady top).
    connect(c, &QChart::plotAreaChanged, this, [this] {
        if (y_room_ != vertical_label_room(chart(), y_->labelsFont()))
            show_view(shown_, x_->min(), x_->max(), shown_y_max_);
        else
            place_band_labels();
    });
    connect(bars_, &QAreaSeries::hovered, this, [this, hovered](const QPointF& p, bool state) {
        if (const HistBar* b = bar_at(p.x())) hovered(*b, state);
    });
    connect(bars_, &QAreaSeries::clicked, this, [this, clicked](const QPointF& p) {
        if (const HistBar* b = bar_at(p.x())) clicked(*b);
    });
}

const HistBar* HistogramChart::bar_at(double x) const {
    for (const HistBar& b : shown_.bars)
        if (x >= b.log2_lo && x < b.log2_hi) return &b;
    return nullptr;
}

void HistogramChart::show_view(const HistogramView& view, double x_min, double x_max, double y_max, bool live) {
    if (view.title != shown_.title) top_.reset();  // another layer or tensor: its own scale at once
    shown_ = view;
    shown_y_max_ = y_max;
    // Room above the highest bar; while training the bars change every few
    // steps, and the top then moves only when they outgrow it or fill too little of it.
    double top = y_max * 1.08;
    if (live)
        top = top_.next({0, top}).hi;
    else
        top_.reset();
    // A round top (the next tick at or above it), ticks at round fractions.
    const bool drawn = !view.bars.empty() || !view.ghost.empty();
    // A strip at the top for the bands' labels, a line each, clear of the bars.
    if (!compact_) top *= 1.0 + 0.09 * static_cast<double>(view.bands.size());
    // At most 6 labels (3 small), fewer where a short plot would have Qt Charts elide them.
    y_room_ = vertical_label_room(chart(), y_->labelsFont());
    const int room = std::min(compact_ ? 3 : 6, y_room_);
    const TickedRange y = ticked_range(0, drawn ? top : 1.0, {room, room, 0});
    top = y.hi;
    set_points(outline_, outline(view.bars));
    set_points(ghost_, outline(view.ghost));
    chart()->legend()->markers(ghost_).value(0)->setVisible(!view.ghost.empty());
    // Without bars the bands would fill the plot with colour about nothing: the note says why it is empty.
    note_->set_note(QString::fromStdString(view.empty_note));
    for (Bands& b : bands_) {
        if (!drawn) {
            for (QAreaSeries* band : {b.flush, b.subnormal, b.overflow}) set_rect(band, 0, 0, top);
            continue;
        }
        const FormatBand* fb = nullptr;
        for (const FormatBand& candidate : view.bands)
            if (candidate.format == b.format) fb = &candidate;
        set_rect(b.flush, x_min, fb ? fb->log2_nonzero : x_min, top);
        set_rect(b.subnormal, fb ? fb->log2_nonzero : 0, fb ? fb->log2_normal : 0, top);
        set_rect(b.overflow, fb ? fb->log2_overflow : x_max, x_max, top);
    }
    set_ticked_range(x_, x_min, x_max, binade_interval(x_min, x_max, x_ticks(width())));
    set_ticked_range(y_, 0, top, y.interval);
    place_band_labels();
}

// As the live view labels them, in a line per band at the top: right of the
// flush edge "<- FP16 flushes to 0" and left of the overflow edge "FP16
// overflows ->", shortened to the names where the long texts do not fit
// between the edges. An edge beyond the axis needs no label; where the
// shortest does not fit between the edges, the label goes inside its band,
// against its edge, without the arrow.
void HistogramChart::place_band_labels() {
    const QRectF area = chart()->plotArea();
    const bool drawn = !shown_.bars.empty() || !shown_.ghost.empty();
    const double x_min = x_->min(), x_max = x_->max();
    double y = area.top() + 2;
    for (Bands& b : bands_) {
        if (!b.flush_label) continue;
        const FormatBand* fb = nullptr;
        for (const FormatBand& candidate : shown_.bands)
            if (candidate.format == b.format) fb = &candidate;
        b.flush_label->setVisible(false);
        b.overflow_label->setVisible(false);
        if (!fb || !drawn) continue;
        const bool flush_shown = fb->log2_nonzero > x_min && fb->log2_nonzero < x_max;
        const bool overflow_shown = fb->log2_overflow > x_min && fb->log2_overflow < x_max;
        const double flush_x = chart()->mapToPosition({fb->log2_nonzero, 0}, bars_).x();
        const double overflow_x = chart()->mapToPosition({fb->log2_overflow, 0}, bars_).x();
        const double left = flush_shown ? flush_x + 3 : area.left() + 3;
        const double right = overflow_shown ? overflow_x - 3 : area.right() - 3;
        const QString name = QString::fromStdString(fb->label);
        const auto width = [](const QGraphicsSimpleTextItem* label) { return label->boundingRect().width(); };
        bool placed = false;
        for (const auto& [flush, over] : {std::pair{"\u2190 " + name + " flushes to 0", name + " overflows \u2192"},
                                          std::pair{"\u2190" + name, name + "\u2192"}}) {
            b.flush_label->setText(flush);
            b.overflow_label->setText(over);
            const double needed = (flush_shown ? width(b.flush_label) : 0) + (overflow_shown ? width(b.overflow_label) : 0);
            if (left + needed + 12 > right) continue;
            b.flush_label->setPos(left, y);
            b.overflow_label->setPos(right - width(b.overflow_label), y);
            placed = true;
            break;
        }
        if (!placed) {  // inside the bands, against their edges
            b.flush_label->setText(name + " flushes to 0");
            b.overflow_label->setText(name + " overflows");
            b.flush_label->setPos(flush_x - 3 - width(b.flush_label), y);
            b.overflow_label->setPos(overflow_x + 3, y);
        }
        b.flush_label->setVisible(flush_shown);
        b.overflow_label->setVisible(overflow_shown);
        if (flush_shown || overflow_shown) y += b.flush_label->boundingRect().height();
    }
}

QStringList HistogramChart::band_labels() const {
    QStringList labels;
    for (const Bands& b : bands_)
        for (const QGraphicsSimpleTextItem* label : {b.flush_label, b.overflow_label})
            if (label && label->isVisible()) labels << label->text();
    return labels;
}

}  // namespace plab::qt
