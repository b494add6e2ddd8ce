#include "ui/qt/histogram_panel.h"

#include <QHBoxLayout>
#include <QLegendMarker>
#include <QToolTip>
#include <QVBoxLayout>
#include <cmath>

#include "engine/numeric/format.h"
#include "ui/present/scale_text.h"

namespace plab::qt {

namespace {

const char* const kTensorNames[] = {"weights", "weight grads", "activations", "activation grads"};

}  // namespace

HistogramPanel::HistogramPanel(PickValue pick, QWidget* parent)
    : Panel("histograms", "Gradient histograms", parent), pick_(std::move(pick)) {
    for (FormatId f : kRangeFormats) bands_.push_back({f});
    pages_ = new QStackedWidget(this);
    large_ = make_chart_widget(false);
    pages_->addWidget(large_);
    auto* grid_page = new QWidget(pages_);
    grid_ = new QGridLayout(grid_page);
    grid_->setContentsMargins(0, 0, 0, 0);
    grid_->setSpacing(4);
    pages_->addWidget(grid_page);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(make_controls());
    layout->addWidget(pages_, 1);
    caption_ = new LiveText(LiveText::Wrap::words, this);
    layout->addWidget(caption_);
    counters_ = new CountersTable(this);
    layout->addWidget(counters_);
}

HistogramChart* HistogramPanel::make_chart_widget(bool compact) {
    return new HistogramChart(
        compact, [this](const HistBar& bar, bool state) { hovered(bar, state); },
        [this](const HistBar& bar) { pick_(static_cast<float>(std::exp2(bar.log2_lo))); }, this);
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
        older_.reset();
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
    config_layer_names_ = snapshot.main.layer_names;
    steps_held_ = snapshot.main.log.recent.size();
    hist_every_ = snapshot.main.config ? snapshot.main.config->telemetry.hist_every : 0;
    with_histograms_.clear();
    for (const auto& r : snapshot.main.log.recent)
        if (r->histograms) with_histograms_.push_back(r);
    pick_record();
}

void HistogramPanel::focus_step(std::int64_t step, std::shared_ptr<const StepRecord> older) {
    focus_ = step;
    older_ = std::move(older);
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
    if (!found && older_ && focus_ && older_->step <= *focus_) found = older_;
    if (found == record_) return;
    record_ = found;
    if (config_layer_names_ != layer_names_) {
        layer_names_ = config_layer_names_;
        const QSignalBlocker block(layer_);
        layer_->clear();
        for (const std::string& name : layer_names_) layer_->addItem(QString::fromStdString(name));
        layer_->addItem("all layers");
        layer_->setCurrentIndex(static_cast<int>(layer_names_.size()) - 1);
    }
    redraw();
}

void HistogramPanel::redraw() {
    const std::vector<FormatId> formats = chosen_formats();
    const int layer = layer_->currentIndex();
    const std::size_t layers = record_ ? std::min(record_->histograms->size(), layer_names_.size()) : 0;
    if (layers == 0 || layer < 0 || static_cast<std::size_t>(layer) > layers) {
        const std::optional<std::int64_t> oldest =
            with_histograms_.empty() ? std::nullopt : std::optional<std::int64_t>(with_histograms_.front()->step);
        caption_->set_text(QString::fromStdString(no_histogram_text(focus_, oldest, steps_held_, hist_every_)));
        return;
    }
    const auto tensor = static_cast<HistTensor>(tensor_->currentIndex());
    if (static_cast<std::size_t>(layer) == layers)
        redraw_all(tensor, formats);
    else
        redraw_one(static_cast<std::size_t>(layer), tensor, formats);
}

void HistogramPanel::add_counter_rows(std::size_t layer, HistTensor tensor, const std::vector<FormatId>& formats,
                                      bool named, std::vector<CountersTable::Row>& rows) const {
    if (layer >= record_->layers.size()) return;
    const TensorStats& s = pick_stats(record_->layers[layer], tensor, unscaled_->isChecked());
    for (FormatId f : formats) {
        const QString format = QString::fromUtf8(std::string(format_display_name(f)).c_str());
        const QString name = named ? QString::fromStdString(layer_names_[layer]) + " " + format : format;
        rows.push_back({name, band_colour(f), make_hist_counters(s, f)});
    }
}

void HistogramPanel::redraw_one(std::size_t l, HistTensor tensor, const std::vector<FormatId>& formats) {
    pages_->setCurrentIndex(0);
    const HistogramView shown = make_histogram_view((*record_->histograms)[l], layer_names_[l], tensor,
                                                    unscaled_->isChecked(), record_->scale, formats);
    large_->show_view(shown, shown.x_min, shown.x_max, shown.y_max, live());
    QString caption = QString(" at step %1, loss scale %2. Shaded: flush to zero (dark), subnormal (light), "
                              "overflow (dark) of each chosen format.")
                          .arg(record_->step)
                          .arg(QString::fromStdString(scale_text(record_->scale)));
    if (shown.shift_log2 != 0)
        caption += QString(" Unscaled: moved %1 binades left of what the hardware holds.").arg(shown.shift_log2);
    caption_->set_text(caption, QString::fromStdString(shown.title));
    std::vector<CountersTable::Row> rows;
    add_counter_rows(l, tensor, formats, false, rows);
    counters_->show_rows(rows);
}

void HistogramPanel::match_small_charts(std::size_t layers) {
    while (small_.size() > layers) {
        delete small_.back();
        delete small_titles_.back();
        small_.pop_back();
        small_titles_.pop_back();
    }
    while (small_.size() < layers) {
        const int i = static_cast<int>(small_.size());
        const int columns = layers == 4 ? 2 : static_cast<int>(std::min<std::size_t>(layers, 3));  // rows of up to three
        auto* title = new QLabel(grid_->parentWidget());
        title->setAlignment(Qt::AlignCenter);
        small_titles_.push_back(title);
        small_.push_back(make_chart_widget(true));
        grid_->addWidget(title, 2 * (i / columns), i % columns);
        grid_->addWidget(small_.back(), 2 * (i / columns) + 1, i % columns);
        grid_->setRowStretch(2 * (i / columns) + 1, 1);
    }
}

// Every layer's histogram on one x range, so that where each layer's mass
// sits against the bands compares at a glance.
void HistogramPanel::redraw_all(HistTensor tensor, const std::vector<FormatId>& formats) {
    pages_->setCurrentIndex(1);
    const std::size_t layers = std::min(record_->histograms->size(), layer_names_.size());
    match_small_charts(layers);
    std::vector<HistogramView> views;
    double x_min = 0, x_max = 0;
    for (std::size_t l = 0; l < layers; ++l) {
        views.push_back(make_histogram_view((*record_->histograms)[l], layer_names_[l], tensor,
                                            unscaled_->isChecked(), record_->scale, formats));
        x_min = l == 0 ? views[l].x_min : std::min(x_min, views[l].x_min);
        x_max = l == 0 ? views[l].x_max : std::max(x_max, views[l].x_max);
    }
    std::vector<CountersTable::Row> rows;
    for (std::size_t l = 0; l < layers; ++l) {
        small_[l]->show_view(views[l], x_min, x_max, views[l].y_max, live());
        small_titles_[l]->setText(QString("<b>%1</b>").arg(QString::fromStdString(views[l].title)));
        add_counter_rows(l, tensor, formats, true, rows);
    }
    caption_->set_text(QString("All layers at step %1, loss scale %2, on one x range (log2 |x|, binades); each plot's "
                              "y is its own fraction of values. Shaded: flush to zero, subnormal, overflow.")
                          .arg(record_->step)
                          .arg(QString::fromStdString(scale_text(record_->scale))));
    counters_->show_rows(rows);
}

void HistogramPanel::hovered(const HistBar& b, bool state) {
    if (!state) {
        QToolTip::hideText();
        return;
    }
    QString tip = QString::fromStdString(bar_tooltip(b)) + "\nlower edge:";
    for (FormatId f : chosen_formats()) tip += "\n  " + QString::fromStdString(bar_edge_bits(b, f));
    QToolTip::showText(QCursor::pos(), tip + "\nclick: the edge in the bit layout panel");
}

}  // namespace plab::qt
