#include "ui/qt/histogram_panel.h"

#include <QHBoxLayout>
#include <QLegendMarker>
#include <QToolTip>
#include <QVBoxLayout>
#include <cmath>

#include "engine/numeric/format.h"
#include "engine/train/preset_rules.h"

namespace plab::qt {

namespace {

constexpr FormatId kBandFormats[] = {FormatId::fp16, FormatId::bf16, FormatId::e4m3, FormatId::e5m2};

QColor band_colour(FormatId f) {
    switch (f) {
        case FormatId::fp16: return QColor(0xe0, 0x40, 0x40);
        case FormatId::bf16: return QColor(0x30, 0x90, 0xe0);
        case FormatId::e4m3: return QColor(0x40, 0xb0, 0x60);
        default: return QColor(0xa0, 0x60, 0xd0);
    }
}

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

void set_rect(QAreaSeries* area, double x0, double x1, double top) {
    if (!(x1 > x0)) {
        area->upperSeries()->clear();
        return;
    }
    area->upperSeries()->replace(QList<QPointF>{{x0, top}, {x1, top}});
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

QString percent(double p) { return QString::number(p, 'g', 3) + "%"; }

const char* const kTensorNames[] = {"weights", "weight grads", "activations", "activation grads"};

}  // namespace

HistogramPanel::HistogramPanel(PickValue pick, QWidget* parent)
    : Panel("histograms", "Gradient histograms", parent), pick_(std::move(pick)) {
    QChart* chart = make_chart();
    const Theme& t = theme();
    for (FormatId f : kBandFormats) {
        Band b{f};
        const QString name = QString::fromUtf8(std::string(format_display_name(f)).c_str());
        b.flush = band_series(chart, name + " flushes to 0", band_colour(f), 60);
        b.subnormal = band_series(chart, name + " subnormal", band_colour(f), 28);
        b.overflow = band_series(chart, name + " overflows", band_colour(f), 60);
        bands_.push_back(b);
    }
    bars_outline_ = new QLineSeries(chart);
    bars_ = new QAreaSeries(bars_outline_);
    bars_->setName("fraction of values");
    QColor fill = t.amp;
    fill.setAlpha(170);
    bars_->setBrush(fill);
    bars_->setPen(QPen(t.amp.darker(120), 1.0));
    chart->addSeries(bars_);
    x_ = make_value_axis("log2 |x|  (binades)", chart, Qt::AlignBottom);
    x_->setLabelFormat("%d");
    y_ = make_value_axis("fraction", chart, Qt::AlignLeft);
    for (QAbstractSeries* s : chart->series()) {
        s->attachAxis(x_);
        s->attachAxis(y_);
    }
    // The band series are many; the legend keeps the bars and says the rest in the caption.
    for (QAbstractSeries* s : chart->series())
        if (s != bars_) chart->legend()->markers(s).value(0)->setVisible(false);
    view_ = make_chart_view(chart, this);
    connect(bars_, &QAreaSeries::hovered, this, [this](const QPointF& p, bool state) { hovered(p, state); });
    connect(bars_, &QAreaSeries::clicked, this, [this](const QPointF& p) { clicked(p); });

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(make_controls());
    layout->addWidget(view_, 1);
    caption_ = new QLabel(this);
    caption_->setWordWrap(true);
    layout->addWidget(caption_);
    counters_ = new QLabel(this);
    QFont f = counters_->font();
    f.setPointSizeF(11);
    counters_->setFont(f);
    counters_->setTextFormat(Qt::RichText);
    layout->addWidget(counters_);
}

QWidget* HistogramPanel::make_controls() {
    auto* row = new QWidget(this);
    auto* h = new QHBoxLayout(row);
    h->setContentsMargins(0, 0, 0, 0);
    layer_ = new QComboBox(row);
    tensor_ = new QComboBox(row);
    for (const char* name : kTensorNames) tensor_->addItem(name);
    tensor_->setCurrentIndex(1);
    unscaled_ = new QCheckBox("unscaled (÷ loss scale)", row);
    h->addWidget(new QLabel("layer", row));
    h->addWidget(layer_);
    h->addWidget(tensor_);
    h->addWidget(unscaled_);
    h->addSpacing(12);
    for (Band& b : bands_) {
        b.toggle = new QCheckBox(QString::fromUtf8(std::string(format_display_name(b.format)).c_str()), row);
        b.toggle->setChecked(b.format == FormatId::fp16 || b.format == FormatId::bf16);
        b.toggle->setStyleSheet(QString("QCheckBox{color:%1;font-weight:bold}").arg(band_colour(b.format).name()));
        connect(b.toggle, &QCheckBox::toggled, this, [this] { redraw(); });
        h->addWidget(b.toggle);
    }
    h->addStretch(1);
    latest_ = new QPushButton("latest", row);
    latest_->setToolTip("Follow the run again (after a jump to a step from the Events panel)");
    latest_->setEnabled(false);
    connect(latest_, &QPushButton::clicked, this, [this] {
        focus_.reset();
        latest_->setEnabled(false);
        pick_record();
    });
    h->addWidget(latest_);
    connect(layer_, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
    connect(tensor_, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
    connect(unscaled_, &QCheckBox::toggled, this, [this] { redraw(); });
    return row;
}

std::vector<FormatId> HistogramPanel::chosen_formats() const {
    std::vector<FormatId> out;
    for (const Band& b : bands_)
        if (b.toggle->isChecked()) out.push_back(b.format);
    return out;
}

void HistogramPanel::show_snapshot(const SessionSnapshot& snapshot) {
    if (snapshot.main.config) config_layer_names_ = model_layer_names(snapshot.main.config->model);
    with_histograms_.clear();
    for (const auto& r : snapshot.main.log.recent)
        if (r->histograms) with_histograms_.push_back(r);
    pick_record();
}

void HistogramPanel::focus_step(std::int64_t step) {
    focus_ = step;
    latest_->setEnabled(true);
    pick_record();
}

// The latest record with histograms (taken every telemetry.hist_every steps),
// at or before the focused step when there is one.
void HistogramPanel::pick_record() {
    std::shared_ptr<const StepRecord> found;
    for (auto it = with_histograms_.rbegin(); it != with_histograms_.rend(); ++it)
        if (!focus_ || (*it)->step <= *focus_) {
            found = *it;
            break;
        }
    if (found == record_) return;
    record_ = found;
    if (config_layer_names_ != layer_names_) {
        layer_names_ = config_layer_names_;
        const QSignalBlocker block(layer_);
        layer_->clear();
        for (const std::string& name : layer_names_) layer_->addItem(QString::fromStdString(name));
        layer_->setCurrentIndex(static_cast<int>(layer_names_.size()) - 1);
    }
    redraw();
}

void HistogramPanel::redraw() {
    const std::vector<FormatId> formats = chosen_formats();
    const int layer = layer_->currentIndex();
    if (!record_ || layer < 0 || static_cast<std::size_t>(layer) >= record_->histograms->size() ||
        static_cast<std::size_t>(layer) >= layer_names_.size()) {
        caption_->setText("No histograms yet: they are taken every telemetry.hist_every steps.");
        return;
    }
    const auto tensor = static_cast<HistTensor>(tensor_->currentIndex());
    const std::size_t l = static_cast<std::size_t>(layer);
    shown_ = make_histogram_view((*record_->histograms)[l], layer_names_[l], tensor, unscaled_->isChecked(),
                                 record_->scale, formats);
    const double top = shown_.y_max * 1.08;
    set_points(bars_outline_, outline(shown_.bars));
    for (Band& b : bands_) {
        const FormatBand* fb = nullptr;
        for (const FormatBand& candidate : shown_.bands)
            if (candidate.format == b.format) fb = &candidate;
        if (!fb) {
            set_rect(b.flush, 0, 0, 0);
            set_rect(b.subnormal, 0, 0, 0);
            set_rect(b.overflow, 0, 0, 0);
            continue;
        }
        set_rect(b.flush, shown_.x_min, fb->log2_nonzero, top);
        set_rect(b.subnormal, fb->log2_nonzero, fb->log2_normal, top);
        set_rect(b.overflow, fb->log2_overflow, shown_.x_max, top);
    }
    x_->setRange(shown_.x_min, shown_.x_max);
    x_->setTickInterval(std::max(1.0, std::ceil((shown_.x_max - shown_.x_min) / 12.0)));
    x_->setTickType(QValueAxis::TicksDynamic);
    x_->setTickAnchor(0);
    y_->setRange(0, top);

    QString caption = QString("<b>%1</b> at step %2, loss scale %3. Shaded: flush to zero (dark), subnormal (light), "
                              "overflow (dark) of each chosen format.")
                          .arg(QString::fromStdString(shown_.title))
                          .arg(record_->step)
                          .arg(static_cast<double>(record_->scale));
    if (shown_.shift_log2 != 0)
        caption += QString(" Unscaled: moved %1 binades left of what the hardware holds.").arg(shown_.shift_log2);
    caption_->setText(caption);

    const LayerRecord* stats = l < record_->layers.size() ? &record_->layers[l] : nullptr;
    QString table = "<table cellspacing=6><tr><th></th><th>zero</th><th>underflow</th><th>subnormal</th>"
                    "<th>overflow</th><th>NaN</th><th>Inf</th></tr>";
    if (stats) {
        const TensorStats& s = pick_stats(*stats, tensor, unscaled_->isChecked());
        for (FormatId f : formats) {
            const HistCounters c = make_hist_counters(s, f);
            table += QString("<tr><td style='color:%1'><b>%2</b></td><td>%3</td><td>%4</td><td>%5</td><td>%6</td>"
                             "<td>%7</td><td>%8</td></tr>")
                         .arg(band_colour(f).name(), QString::fromUtf8(std::string(format_display_name(f)).c_str()),
                              percent(c.zero), percent(c.underflow), percent(c.subnormal), percent(c.overflow),
                              percent(c.nan), percent(c.inf));
        }
    }
    counters_->setText(table + "</table>");
}

void HistogramPanel::hovered(const QPointF& point, bool state) {
    if (!state) {
        QToolTip::hideText();
        return;
    }
    for (const HistBar& b : shown_.bars)
        if (point.x() >= b.log2_lo && point.x() < b.log2_hi) {
            QString tip = QString::fromStdString(bar_tooltip(b)) + "\nlower edge:";
            for (FormatId f : chosen_formats()) tip += "\n  " + QString::fromStdString(bar_edge_bits(b, f));
            QToolTip::showText(QCursor::pos(), tip + "\nclick: the edge in the bit layout panel");
            return;
        }
}

void HistogramPanel::clicked(const QPointF& point) {
    for (const HistBar& b : shown_.bars)
        if (point.x() >= b.log2_lo && point.x() < b.log2_hi) {
            pick_(static_cast<float>(std::exp2(b.log2_lo)));
            return;
        }
}

}  // namespace plab::qt
