#include "ui/qt/histogram_panel.h"

#include <QGridLayout>
#include <QHBoxLayout>
#include <QLegendMarker>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "engine/numeric/format.h"
#include "ui/present/scale_text.h"
#include "ui/present/small_multiples.h"

namespace plab::qt {

namespace {

const char* const kTensorNames[] = {"weights", "weight grads", "activations", "activation grads"};

// A small chart stays this large however many layers there are: past what
// fits, the grid scrolls rather than squeezing 60 charts into slivers. Six
// abreast fit a panel 900 pixels wide.
constexpr QSize kSmallChartMin{140, 110};
// All layers list a row of counters per layer and format; the table shows
// this many and scrolls the rest, so that it never crowds out the charts
// nor, on a small screen, stretches the window (six rows did by 10 px).
constexpr int kCounterRowsShown = 4;

const char* const kGhostCaption =
    " Dashed outline: the FP32 twin's values (times the loss scale in the scaled view); what lies in a "
    "format's flush band, the run loses to it.";

QScrollArea* scroll_area(QWidget* parent) {
    auto* area = new QScrollArea(parent);
    area->setWidgetResizable(true);
    area->setFrameShape(QFrame::NoFrame);
    return area;
}

}  // namespace

HistogramPanel::HistogramPanel(PickValue pick, QWidget* parent)
    : Panel("histograms", "Gradient histograms", parent), pick_(std::move(pick)) {
    for (FormatId f : kRangeFormats) bands_.push_back({f});
    pages_ = new QStackedWidget(this);
    large_ = make_chart_widget(false);
    pages_->addWidget(large_);
    grid_ = scroll_area(pages_);
    pages_->addWidget(grid_);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(make_controls());
    layout->addWidget(pages_, 1);
    caption_ = new LiveText(LiveText::Wrap::words, this);
    layout->addWidget(caption_);
    counters_area_ = scroll_area(this);
    counters_ = new CountersTable(counters_area_);
    counters_area_->setWidget(counters_);
    layout->addWidget(counters_area_);
}

HistogramChart* HistogramPanel::make_chart_widget(bool compact) {
    return new HistogramChart(
        compact, [this](const HistBar& bar, bool state) { hovered(bar, state); },
        [this](const HistBar& bar) { pick_(static_cast<float>(std::exp2(bar.log2_lo))); }, this);
}

// Two rows (what to show; how), so that the panel's least width stays a
// third of a small screen's rather than the whole row's 1000 pixels.
QWidget* HistogramPanel::make_controls() {
    auto* row = new QWidget(this);
    auto* rows = new QVBoxLayout(row);
    rows->setContentsMargins(0, 0, 0, 0);
    rows->setSpacing(2);
    auto* h = new QHBoxLayout;
    auto* how = new QHBoxLayout;
    rows->addLayout(h);
    rows->addLayout(how);
    layer_ = new LayerCombo(row);
    filter_ = new QLineEdit(row);
    filter_->setPlaceholderText("filter");
    filter_->setClearButtonEnabled(true);
    filter_->setToolTip("Keep the layers whose name contains this (any case): \"h1.\" a block, \"attn\" every "
                        "attention tensor; it narrows \"all layers\" too");
    filter_->setFixedWidth(filter_->fontMetrics().horizontalAdvance("h11.attn.proj") * 3 / 2);
    tensor_ = new QComboBox(row);
    for (const char* name : kTensorNames) tensor_->addItem(name);
    tensor_->setCurrentIndex(1);
    unscaled_ = new QCheckBox("unscaled (÷ loss scale)", row);
    h->addWidget(new QLabel("layer", row));
    h->addWidget(layer_);
    h->addWidget(filter_);
    h->addWidget(tensor_);
    h->addStretch(1);
    how->addWidget(unscaled_);
    how->addSpacing(12);
    for (Band& b : bands_) {
        b.toggle = new QCheckBox(QString::fromUtf8(std::string(format_display_name(b.format)).c_str()), row);
        b.toggle->setChecked(b.format == FormatId::fp16 || b.format == FormatId::bf16);
        b.toggle->setStyleSheet(QString("QCheckBox{color:%1;font-weight:bold}").arg(band_colour(b.format).name()));
        connect(b.toggle, &QCheckBox::toggled, this, [this] { redraw(); });
        how->addWidget(b.toggle);
    }
    how->addStretch(1);
    latest_ = new QPushButton("latest", row);
    latest_->setToolTip("Follow the run again (after a jump to a step from the Events panel)");
    latest_->setEnabled(false);
    connect(latest_, &QPushButton::clicked, this, [this] {
        focus_.reset();
        older_.reset();
        latest_->setEnabled(false);
        pick_record();
    });
    how->addWidget(latest_);
    connect(layer_, &QComboBox::currentIndexChanged, this, [this] {
        want_ = layer_->chosen().value_or(want_);
        redraw();
    });
    connect(filter_, &QLineEdit::textChanged, this, [this] {
        fill_layers();
        redraw();
    });
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
        want_ = output_layer(layer_names_);
        if (choose_asked_layer()) return;
        fill_layers();
    }
    redraw();
}

void HistogramPanel::look_at(const HistogramFocus& focus) {
    if (focus.tensor) tensor_->setCurrentIndex(static_cast<int>(*focus.tensor));
    for (const Band& b : bands_)
        if (std::find(focus.bands.begin(), focus.bands.end(), b.format) != focus.bands.end()) b.toggle->setChecked(true);
    asked_layer_ = focus.layer.value_or("");
    choose_asked_layer();
}

// The layer a guide asked for, when the run has it: chosen and drawn.
bool HistogramPanel::choose_asked_layer() {
    const auto it = std::find(layer_names_.begin(), layer_names_.end(), asked_layer_);
    if (asked_layer_.empty() || it == layer_names_.end()) return false;
    want_ = static_cast<std::size_t>(it - layer_names_.begin());
    fill_layers();
    redraw();
    return true;
}

// The chooser for the filter, the layer last chosen still chosen while the filter keeps it.
void HistogramPanel::fill_layers() {
    chooser_ = make_layer_chooser(layer_names_, filter_->text().toStdString());
    layer_->show_chooser(chooser_, want_);
}

void HistogramPanel::redraw() {
    const std::vector<FormatId> formats = chosen_formats();
    const std::optional<std::size_t> layer = layer_->chosen();
    const std::size_t layers = record_ ? std::min(record_->histograms->size(), layer_names_.size()) : 0;
    if (!chooser_.note.empty()) {
        show_nothing(QString::fromStdString(chooser_.note));
        return;
    }
    if (layers == 0 || !layer || (*layer != kAllLayers && *layer >= layers)) {
        const std::optional<std::int64_t> oldest =
            with_histograms_.empty() ? std::nullopt : std::optional<std::int64_t>(with_histograms_.front()->step);
        show_nothing(QString::fromStdString(no_histogram_text(focus_, oldest, steps_held_, hist_every_)));
        return;
    }
    const auto tensor = static_cast<HistTensor>(tensor_->currentIndex());
    if (*layer == kAllLayers)
        redraw_all(tensor, formats);
    else
        redraw_one(*layer, tensor, formats);
}

// Nothing to draw: an earlier record's bars and counters go (after Reset,
// another preset), so that nothing stale stays under the caption saying why.
void HistogramPanel::show_nothing(const QString& why) {
    pages_->setCurrentIndex(0);
    HistogramView empty;
    empty.empty_note = "no histogram to show";
    large_->show_view(empty, empty.x_min, empty.x_max, 1.0, live());
    counters_->show_rows({});
    caption_->set_text(why);
}

const LayerHistograms* HistogramPanel::twin_histograms(std::size_t layer) const {
    const TwinView* twin = record_->twin_view.get();
    return twin && layer < twin->histograms.size() ? &twin->histograms[layer] : nullptr;
}

void HistogramPanel::add_counter_rows(std::size_t layer, HistTensor tensor, const std::vector<FormatId>& formats,
                                      bool named, std::vector<CountersTable::Row>& rows) const {
    if (layer >= record_->layers.size() || !layer_holds(record_->layers[layer], tensor)) return;
    const TensorStats& s = pick_stats(record_->layers[layer], tensor, unscaled_->isChecked());
    const TwinView* twin = record_->twin_view.get();
    const TensorStats* twin_stats =
        twin && layer < twin->layers.size() ? &pick_stats(twin->layers[layer], tensor, unscaled_->isChecked()) : nullptr;
    for (FormatId f : formats) {
        const QString format = QString::fromUtf8(std::string(format_display_name(f)).c_str());
        const QString name = named ? QString::fromStdString(layer_names_[layer]) + " " + format : format;
        rows.push_back({name, band_colour(f), make_hist_counters(s, f, twin_stats)});
    }
}

void HistogramPanel::redraw_one(std::size_t l, HistTensor tensor, const std::vector<FormatId>& formats) {
    pages_->setCurrentIndex(0);
    const HistogramView shown = make_histogram_view((*record_->histograms)[l], layer_names_[l], tensor,
                                                    unscaled_->isChecked(), record_->scale, formats, twin_histograms(l));
    // While training, x moves in steps for one layer's one view: a range that
    // jumped at every histogram step (-24..16, -2..16, -16..16) hid how the
    // mass moves. Another layer, tensor or scaling starts it afresh.
    const XRangeKey key{l, static_cast<int>(tensor), unscaled_->isChecked()};
    if (key != x_key_) {
        x_key_ = key;
        x_steady_.reset();
    }
    const AxisSpan x = x_steady_.follow({shown.x_min, shown.x_max}, live());
    large_->show_view(shown, x.lo, x.hi, shown.y_max, live());
    QString caption = QString(" at step %1, loss scale %2. Shaded: flush to zero (dark), subnormal (hatched), "
                              "overflow (dark) of each chosen format.")
                          .arg(record_->step)
                          .arg(QString::fromStdString(scale_text(record_->scale)));
    if (shown.shift_log2 != 0)
        caption += QString(" Unscaled: moved %1 binades left of what the hardware holds.").arg(shown.shift_log2);
    if (!shown.ghost.empty()) caption += kGhostCaption;
    caption_->set_text(caption, QString::fromStdString(shown.title));
    std::vector<CountersTable::Row> rows;
    add_counter_rows(l, tensor, formats, false, rows);
    show_counters(rows);
}

// The table's own height up to kCounterRowsShown rows, scrolled past that.
void HistogramPanel::show_counters(const std::vector<CountersTable::Row>& rows) {
    counters_->show_rows(rows);
    counters_area_->setFixedHeight(counters_->height_of_rows(std::min(static_cast<int>(rows.size()), kCounterRowsShown)));
}

void HistogramPanel::match_small_charts(std::size_t charts) {
    if (small_.size() == charts) return;
    while (small_.size() > charts) {
        delete small_.back();
        delete small_titles_.back();
        small_.pop_back();
        small_titles_.pop_back();
    }
    while (small_.size() < charts) {
        auto* title = new QLabel(this);
        title->setAlignment(Qt::AlignCenter);
        small_titles_.push_back(title);
        small_.push_back(make_chart_widget(true));
        small_.back()->setMinimumSize(kSmallChartMin);
    }
    lay_out_small_charts();
}

// A new page for the grid: the columns depend on how many charts there are
// (small_multiple_columns), and a grid's rows cannot be taken back out.
void HistogramPanel::lay_out_small_charts() {
    auto* page = new QWidget;
    auto* grid = new QGridLayout(page);
    grid->setContentsMargins(0, 0, 0, 0);
    grid->setSpacing(4);
    const int columns = small_multiple_columns(small_.size());
    for (std::size_t i = 0; i < small_.size(); ++i) {
        const int row = 2 * (static_cast<int>(i) / columns), column = static_cast<int>(i) % columns;
        grid->addWidget(small_titles_[i], row, column);  // moves it from the old page
        grid->addWidget(small_[i], row + 1, column);
        grid->setRowStretch(row + 1, 1);
    }
    grid_->setWidget(page);  // deletes the old page, emptied of the charts
}

// Every layer's histogram on one x range, so that where each layer's mass
// sits against the bands compares at a glance.
void HistogramPanel::redraw_all(HistTensor tensor, const std::vector<FormatId>& formats) {
    pages_->setCurrentIndex(1);
    const std::size_t held = std::min(record_->histograms->size(), layer_names_.size());
    std::vector<std::size_t> shown;  // the layers the filter keeps that the record holds
    for (std::size_t l : chooser_.layers)
        if (l < held) shown.push_back(l);
    match_small_charts(shown.size());
    std::vector<HistogramView> views;
    for (std::size_t l : shown)
        views.push_back(make_histogram_view((*record_->histograms)[l], layer_names_[l], tensor, unscaled_->isChecked(),
                                            record_->scale, formats, twin_histograms(l)));
    const auto [x_min, x_max] = shared_x_range(views);
    std::vector<CountersTable::Row> rows;
    for (std::size_t i = 0; i < shown.size(); ++i) {
        small_[i]->show_view(views[i], x_min, x_max, views[i].y_max, live());
        // The layer's name alone: the tensor and scaling are the same for all and said in the caption.
        small_titles_[i]->setText(QString("<b>%1</b>").arg(QString::fromStdString(layer_names_[shown[i]])));
        small_titles_[i]->setToolTip(QString::fromStdString(views[i].title));
        add_counter_rows(shown[i], tensor, formats, true, rows);
    }
    // What every small chart shows besides its layer: " · weight grad · unscaled".
    const std::string what = views.empty() ? std::string() : views[0].title.substr(layer_names_[shown[0]].size());
    const QString which = filter_->text().isEmpty()
                              ? QString("All %1 layers").arg(held)
                              : QString("The layers matching \"%1\" (%2 of %3)").arg(filter_->text()).arg(shown.size()).arg(held);
    caption_->set_text(QString("%1%2 at step %3, loss scale %4, on one x range (log2 |x|, binades); each plot's y is "
                               "its own fraction of values. Shaded: flush to zero, subnormal, overflow.")
                           .arg(which, QString::fromStdString(what))
                           .arg(record_->step)
                           .arg(QString::fromStdString(scale_text(record_->scale))));
    show_counters(rows);
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
