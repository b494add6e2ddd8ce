#include "ui/qt/histogram_chart.h"

#include <QLegendMarker>
#include <cmath>

#include "ui/present/axis_ticks.h"
#include "ui/qt/chart_kit.h"

namespace plab::qt {

namespace {

// A rectangle [x0, x1] x [0, top] as an area series (its own two line series).
QAreaSeries* band_series(QChart* chart, const QString& name, QColor colour, int alpha) {
    auto* upper = new QLineSeries(chart);
    auto* area = new QAreaSeries(upper);
    area->setName(name);
    colour.setAlpha(alpha);
    area->setBrush(colour);
    area->setPen(Qt::NoPen);
    chart->addSeries(area);
    return area;
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
        bands_.push_back({f, band_series(c, name + " flushes to 0", band_colour(f), 60),
                          band_series(c, name + " subnormal", band_colour(f), 28),
                          band_series(c, name + " overflows", band_colour(f), 60)});
    }
    outline_ = new QLineSeries(c);
    bars_ = new QAreaSeries(outline_);
    bars_->setName("fraction of values");
    QColor fill = t.amp;
    fill.setAlpha(170);
    bars_->setBrush(fill);
    bars_->setPen(QPen(t.amp.darker(120), line_width(1)));
    c->addSeries(bars_);
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
    // The band series are many; the legend keeps the bars and the panel's caption says the rest.
    for (QAbstractSeries* s : c->series())
        if (s != bars_) c->legend()->markers(s).value(0)->setVisible(false);
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
    // Room above the highest bar; while training the bars change every few
    // steps, and the top then moves only when they outgrow it or fill too little of it.
    double top = y_max * 1.08;
    if (live)
        top = top_.next({0, top}).hi;
    else
        top_.reset();
    // A round top (the next tick at or above it), ticks at round fractions.
    const int room = compact_ ? 3 : 6;
    const TickedRange y = ticked_range(0, view.bars.empty() ? 1.0 : top, {room, room, 0});
    top = y.hi;
    set_points(outline_, outline(view.bars));
    // Without bars the bands would fill the plot with colour about nothing: the note says why it is empty.
    note_->set_note(QString::fromStdString(view.empty_note));
    for (Bands& b : bands_) {
        if (view.bars.empty()) {
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
}

}  // namespace plab::qt
