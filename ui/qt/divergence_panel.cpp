#include "ui/present/record_notes.h"
#include "ui/qt/divergence_panel.h"

#include <QButtonGroup>
#include <QCategoryAxis>
#include <QHBoxLayout>
#include <QLegend>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "ui/present/layer_blocks.h"
#include "ui/qt/chart_kit.h"

namespace plab::qt {

namespace {

constexpr double kFontPt = 11;
constexpr int kChartMargin = 4;  // make_chart's margins

// Layer colours: distinct hues with none of them red, which marks non-finite values.
QColor layer_colour(std::size_t layer) {
    static const QColor colours[] = {QColor(0x1f, 0x77, 0xb4), QColor(0xff, 0x7f, 0x0e), QColor(0x2c, 0xa0, 0x2c),
                                     QColor(0x94, 0x67, 0xbd), QColor(0x8c, 0x56, 0x4b), QColor(0x17, 0xbe, 0xcf),
                                     QColor(0xe3, 0x77, 0xc2), QColor(0x7f, 0x7f, 0x7f)};
    const QColor c = colours[layer % std::size(colours)];
    return theme().dark ? c.lighter(135) : c;
}

// Viridis, sampled every tenth: perceptually even, readable in grey, and
// bright where the run is farthest from its twin.
QColor shade_colour(double shade) {
    static const QColor stops[] = {QColor(0x44, 0x01, 0x54), QColor(0x48, 0x24, 0x75), QColor(0x41, 0x44, 0x87),
                                   QColor(0x35, 0x5f, 0x8d), QColor(0x2a, 0x78, 0x8e), QColor(0x21, 0x91, 0x8c),
                                   QColor(0x22, 0xa8, 0x84), QColor(0x44, 0xbf, 0x70), QColor(0x7a, 0xd1, 0x51),
                                   QColor(0xbd, 0xdf, 0x26), QColor(0xfd, 0xe7, 0x25)};
    const double pos = std::clamp(shade, 0.0, 1.0) * 10.0;
    const int i = std::min(9, static_cast<int>(pos));
    const double t = pos - i;
    const QColor& a = stops[i];
    const QColor& b = stops[i + 1];
    return QColor::fromRgbF(static_cast<float>(a.redF() + t * (b.redF() - a.redF())),
                            static_cast<float>(a.greenF() + t * (b.greenF() - a.greenF())),
                            static_cast<float>(a.blueF() + t * (b.blueF() - a.blueF())));
}

// "■ fc1  ■ fc2  ■ fc3" in the layers' line colours.
QString layer_key(const std::vector<DivergenceLayer>& layers) {
    QString key;
    for (std::size_t i = 0; i < layers.size(); ++i) {
        key += QString("<span style='color:%1'>&#9632;</span> %2 &nbsp; ")
                   .arg(layer_colour(i).name(), QString::fromStdString(layers[i].name));
    }
    return key;
}

QColor cell_colour(const HeatCell& cell) {
    if (cell.nonfinite) return theme().overflow;
    if (std::isnan(cell.value)) return theme().window;
    return shade_colour(cell.shade);
}

QValueAxis* step_axis(QChart* chart, bool titled) {
    QValueAxis* x = make_value_axis(titled ? "step" : "", chart, Qt::AlignBottom);
    x->setLabelFormat("%d");
    return x;
}

// How many y labels a plot this tall holds.
int label_room(const QChartView* view) {
    QFont f = view->font();
    f.setPointSizeF(font_points(kFontPt));
    return vertical_label_room(view->chart(), f);
}

// The distance plot's y is log10 of the distance on a linear axis, so that
// its labels can be the presenter's: decades counted from the top, and "0" at
// the foot when zeros are drawn there (a QLogValueAxis labels only powers of
// its base and nothing else). A label sits at the top of its category.
// Past `room` labels, every k-th only (the top one kept), as the plot's height holds them.
void set_decade_labels(QCategoryAxis* y, double lo, double hi, std::vector<ShadeTick> ticks, int room) {
    const std::size_t every = (ticks.size() + static_cast<std::size_t>(room) - 1) / static_cast<std::size_t>(room);
    for (std::size_t i = ticks.size(); i-- > 0;)
        if (i % every != 0) ticks.erase(ticks.begin() + static_cast<std::ptrdiff_t>(i));
    QStringList labels;
    for (const ShadeTick& t : ticks) labels.append(QString::fromStdString(t.text));
    // Widened by a hair so that the labels at both ends are inside the range.
    const double bottom = lo - 1e-9, top = hi + 1e-9;
    if (labels == y->categoriesLabels() && y->min() == bottom && y->max() == top) return;  // unchanged: no relayout
    for (const QString& label : y->categoriesLabels()) y->remove(label);
    y->setRange(bottom, top);
    y->setStartValue(bottom);
    for (const ShadeTick& t : ticks) y->append(QString::fromStdString(t.text), lo + t.shade * (hi - lo));
}

void set_cosine_ticks(QValueAxis* y, double lo, double hi, int room) {
    double interval = 0.5;
    for (double candidate : {0.01, 0.02, 0.05, 0.1, 0.2, 0.5}) {
        if ((hi - lo) / candidate <= room - 1) {
            interval = candidate;
            break;
        }
    }
    y->setTickType(QValueAxis::TicksDynamic);
    y->setTickAnchor(1.0);
    y->setTickInterval(interval);
    y->setLabelFormat(interval < 0.1 ? "%.2f" : "%.1f");
}


// The colour scale of a heat map: a vertical bar from shade 1 (top) to 0,
// the presenter's tick labels beside it, and the non-finite swatch below.
class ShadeBar : public QWidget {
public:
    explicit ShadeBar(QWidget* parent) : QWidget(parent) {
        QFont f = font();
        f.setPointSizeF(font_points(kFontPt));
        setFont(f);
        setFixedWidth(QFontMetrics(f).horizontalAdvance("0.0001") + 34);
    }

    void set_ticks(std::vector<ShadeTick> ticks) {
        ticks_ = std::move(ticks);
        update();
    }

    // The bar spans the chart's plot area, so its ends line up with the cells.
    void set_span(int top, int bottom) {
        top_ = top;
        bottom_ = bottom;
        update();
    }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        const Theme& t = theme();
        const int bar_w = 12;
        const QFontMetrics fm(font());
        const int swatch = fm.height();
        const int bottom = std::min(bottom_, height() - swatch - 6);
        const QRect bar(2, top_, bar_w, std::max(1, bottom - top_));
        for (int y = bar.top(); y <= bar.bottom(); ++y) {
            const double shade = 1.0 - static_cast<double>(y - bar.top()) / std::max(1, bar.height() - 1);
            p.setPen(shade_colour(shade));
            p.drawLine(bar.left(), y, bar.right(), y);
        }
        p.setPen(t.text);
        for (const ShadeTick& tick : ticks_) {
            const int y = bar.bottom() - static_cast<int>(std::lround(tick.shade * (bar.height() - 1)));
            p.drawLine(bar.right() + 1, y, bar.right() + 4, y);
            p.drawText(QRect(bar.right() + 6, y - swatch / 2, width() - bar.right() - 6, swatch),
                       Qt::AlignLeft | Qt::AlignVCenter, QString::fromStdString(tick.text));
        }
        const QRect nonfinite(2, bottom + 6, bar_w, swatch - 2);
        p.fillRect(nonfinite, t.overflow);
        p.drawText(QRect(bar.right() + 6, bottom + 5, width() - bar.right() - 6, swatch), Qt::AlignLeft | Qt::AlignVCenter,
                   "Inf/NaN");
    }

private:
    std::vector<ShadeTick> ticks_;
    int top_ = 0;
    int bottom_ = 100;
};

}  // namespace

// One heat map as a chart: the step axis below like the line charts', the
// layers down the left (fc1 on top), the cells painted over the plot area,
// and the cell under the pointer described in a tooltip.
class HeatChartView : public QChartView {
public:
    HeatChartView(DivergenceMetric metric, const QString& title, bool step_title, QWidget* parent)
        : QChartView(make_chart(), parent), metric_(metric) {
        setRenderHint(QPainter::Antialiasing);
        setMinimumSize(320, 150);
        chart()->legend()->hide();
        x_ = step_axis(chart(), step_title);
        x_->setGridLineVisible(false);
        y_ = new QCategoryAxis(chart());
        style_axis(y_, title);
        y_->setLabelsPosition(QCategoryAxis::AxisLabelsPositionCenter);
        y_->setGridLineVisible(false);
        chart()->addAxis(y_, Qt::AlignLeft);
        // An empty series on both axes, so that the chart lays them out as it does the line charts'.
        auto* holder = new QLineSeries(chart());
        chart()->addSeries(holder);
        holder->attachAxis(x_);
        holder->attachAxis(y_);
        bar_ = new ShadeBar(parent);
        viewport()->setMouseTracking(true);
        connect(chart(), &QChart::plotAreaChanged, this, [this] { place(); });
    }

    ShadeBar* bar() const { return bar_; }

    void show_view(std::shared_ptr<const DivergenceView> view) {
        view_ = std::move(view);
        const HeatMap& m = map();
        if (m.columns.empty()) return;
        set_step_range(x_, view_->step_min, view_->step_max);
        bar_->set_ticks(m.ticks);
        place();  // its row labels too
    }

protected:
    void drawForeground(QPainter* painter, const QRectF&) override {
        if (!cells_.isNull()) painter->drawImage(chart()->plotArea().topLeft(), cells_);
    }

    void mouseMoveEvent(QMouseEvent* event) override {
        QChartView::mouseMoveEvent(event);
        const QString text = cell_text(event->position());
        if (text.isEmpty())
            QToolTip::hideText();
        else
            QToolTip::showText(event->globalPosition().toPoint(), text, this);
    }

private:
    using RowLabel = std::pair<QString, int>;  // a category's label and its upper end on the y axis

    // Row r is drawn between y = rows - r - 1 and rows - r: the first layer on
    // top. A transformer's layers are labelled by block (h0, h1, head): at
    // 30-60 rows one label a row would overlap; the tooltip names the layer.
    // A transformer's block labels, joined where the plot is too short for
    // one a block (labelled_row_groups): the plot's height decides.
    void update_row_labels() {
        if (!view_ || map().rows.empty()) return;
        const int rows = static_cast<int>(map().rows.size());
        const int room = vertical_label_room(chart(), y_->labelsFont());
        const std::vector<RowLabel> labels = row_labels(*view_, rows, static_cast<std::size_t>((rows + room - 1) / room));
        if (labels == labels_) return;
        for (const QString& label : y_->categoriesLabels()) y_->remove(label);
        for (const auto& [label, end] : labels) y_->append(label, end);
        y_->setRange(0, static_cast<double>(rows));
        labels_ = labels;
    }

    static std::vector<RowLabel> row_labels(const DivergenceView& v, int rows, std::size_t min_rows) {
        std::vector<RowLabel> labels;
        if (v.blocks.empty()) {
            for (int k = 0; k < rows; ++k) {
                const auto layer = static_cast<std::size_t>(rows - k - 1);
                labels.push_back({layer < v.layers.size() ? QString::fromStdString(v.layers[layer].name)
                                                          : QString("fc%1").arg(rows - k),
                                  k + 1});
            }
            return labels;
        }
        const std::vector<LayerBlock> groups = labelled_row_groups(v.blocks, min_rows);
        for (auto b = groups.rbegin(); b != groups.rend(); ++b)
            labels.push_back({QString::fromStdString(b->label), rows - static_cast<int>(b->first)});
        return labels;
    }

    const HeatMap& map() const {
        return metric_ == DivergenceMetric::rel_dist ? view_->rel_dist_heat : view_->grad_cos_heat;
    }

    // Renders the cells at the plot area's size (each cell a rectangle from the
    // step boundary before its first step to its last step), and lines the bar up.
    void place() {
        update_row_labels();
        const QRectF area = chart()->plotArea();
        bar_->set_span(static_cast<int>(mapFromScene(area.topLeft()).y()) + y(),
                       static_cast<int>(mapFromScene(area.bottomLeft()).y()) + y());
        if (!view_ || map().columns.empty() || area.width() < 1 || area.height() < 1) {
            cells_ = QImage();
            viewport()->update();
            return;
        }
        cells_ = QImage(area.size().toSize(), QImage::Format_RGB32);
        cells_.fill(theme().window);
        QPainter p(&cells_);
        const HeatMap& m = map();
        const double x_min = x_->min(), x_span = x_->max() - x_->min();
        const double row_h = area.height() / static_cast<double>(m.rows.size());
        for (std::size_t c = 0; c < m.columns.size(); ++c) {
            const double x0 = (static_cast<double>(m.columns[c].first_step - 1) - x_min) / x_span * area.width();
            const double x1 = (static_cast<double>(m.columns[c].last_step) - x_min) / x_span * area.width();
            for (std::size_t r = 0; r < m.rows.size(); ++r) {
                // Whole pixels, each cell at least one wide, so none is lost between its neighbours.
                const QRect cell(QPoint(static_cast<int>(std::floor(x0)), static_cast<int>(std::floor(r * row_h))),
                                 QPoint(std::max(static_cast<int>(std::floor(x0)), static_cast<int>(std::ceil(x1)) - 1),
                                        static_cast<int>(std::ceil((r + 1) * row_h)) - 1));
                p.fillRect(cell, cell_colour(m.rows[r][c]));
            }
        }
        p.setPen(QPen(theme().window, line_width(row_h >= 6 ? 2 : 1)));  // a gap between the layers' rows
        for (std::size_t r = 1; r < m.rows.size(); ++r) p.drawLine(QPointF(0, r * row_h), QPointF(area.width(), r * row_h));
        p.setPen(QPen(theme().text, line_width(2)));  // and a line between blocks
        for (const LayerBlock& b : view_->blocks)
            if (b.first > 0) p.drawLine(QPointF(0, b.first * row_h), QPointF(area.width(), b.first * row_h));
        viewport()->update();
    }

    QString cell_text(const QPointF& at) const {
        if (!view_ || map().columns.empty()) return {};
        const QPointF value = chart()->mapToValue(chart()->mapFromScene(mapToScene(at.toPoint())));
        const HeatMap& m = map();
        const auto rows = static_cast<double>(m.rows.size());
        if (value.y() < 0 || value.y() >= rows) return {};
        const auto row = static_cast<std::size_t>(rows - 1 - std::floor(value.y()));
        // The step whose column (step - 1, step] holds x.
        const auto step = static_cast<std::int64_t>(std::ceil(value.x()));
        const auto it = std::find_if(m.columns.begin(), m.columns.end(),
                                     [step](const HeatColumn& c) { return step >= c.first_step && step <= c.last_step; });
        if (it == m.columns.end()) return {};
        const auto column = static_cast<std::size_t>(it - m.columns.begin());
        return QString::fromStdString(heat_cell_text(*view_, metric_, row, column));
    }

    DivergenceMetric metric_;
    QValueAxis* x_ = nullptr;
    QCategoryAxis* y_ = nullptr;
    ShadeBar* bar_ = nullptr;
    std::vector<RowLabel> labels_;
    std::shared_ptr<const DivergenceView> view_;
    QImage cells_;
};

DivergencePanel::DivergencePanel(QWidget* parent) : Panel("divergence", "FP32-twin divergence", parent) {
    pages_ = new QStackedWidget(this);
    pages_->addWidget(make_lines_page());
    pages_->addWidget(make_heat_page());
    message_ = new QLabel(this);
    message_->setAlignment(Qt::AlignCenter);
    message_->setWordWrap(true);
    QFont m = message_->font();
    m.setPointSizeF(font_points(13));
    message_->setFont(m);
    pages_->addWidget(message_);

    // Live text: it changes every frame, and a label's change lays the whole window out again.
    summary_ = new LiveText(LiveText::Wrap::words, this);
    summary_->add_copy_action();
    QFont s = summary_->font();
    s.setPointSizeF(font_points(11.5));
    summary_->setFont(s);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(4, 4, 4, 4);
    layout->setSpacing(2);
    layout->addWidget(make_toggle());
    layout->addWidget(pages_, 1);
    layout->addWidget(summary_);
}

QWidget* DivergencePanel::make_toggle() {
    auto* row = new QWidget(this);
    auto* h = new QHBoxLayout(row);
    h->setContentsMargins(0, 0, 0, 0);
    key_ = new QLabel(row);
    key_->setTextFormat(Qt::RichText);
    QFont f = key_->font();
    f.setPointSizeF(font_points(kFontPt));
    key_->setFont(f);
    key_->setToolTip("The AMP run and its FP32 twin start from the same weights and see the same batches; "
                     "only the arithmetic differs. The latest 1024 steps are shown.");
    h->addWidget(key_, 1);
    lines_button_ = new QPushButton("lines", row);
    heat_button_ = new QPushButton("heat map", row);
    auto* group = new QButtonGroup(row);
    for (QPushButton* b : {lines_button_, heat_button_}) {
        b->setCheckable(true);
        group->addButton(b);
        h->addWidget(b);
    }
    lines_button_->setChecked(true);
    heat_button_->setToolTip("x = step, y = layer, colour = the worst step of each cell");
    connect(group, &QButtonGroup::buttonToggled, this, [this](QAbstractButton*, bool on) {
        if (on) redraw();
    });
    connect(group, &QButtonGroup::buttonClicked, this, [this](QAbstractButton*) { view_chosen_ = true; });
    return row;
}

QWidget* DivergencePanel::make_lines_page() {
    auto* page = new QWidget(this);
    auto* v = new QVBoxLayout(page);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(0);

    // The layers' colour key sits above the charts (one for both), not in a legend under each.
    QChart* dist = make_chart();
    dist->legend()->hide();
    dist_x_ = step_axis(dist, false);
    dist_y_ = new QCategoryAxis(dist);
    style_axis(dist_y_, "weight distance");
    dist_y_->setLabelsPosition(QCategoryAxis::AxisLabelsPositionOnValue);
    dist->addAxis(dist_y_, Qt::AlignLeft);
    dist_view_ = make_chart_view(dist, page);
    dist_view_->setMinimumHeight(110);

    QChart* cos = make_chart();
    cos->legend()->hide();
    cos_x_ = step_axis(cos, true);
    cos_y_ = make_value_axis("grad cosine", cos, Qt::AlignLeft);
    cos_y_->setLabelFormat("%.2f");
    cos_view_ = make_chart_view(cos, page);
    cos_view_->setMinimumHeight(110);

    // A line that is not finite is not drawn: these say whose, and when.
    dist_gaps_ = new PlotNote(dist, Qt::AlignTop | Qt::AlignLeft, 10.5, theme().overflow);
    cos_gaps_ = new PlotNote(cos, Qt::AlignTop | Qt::AlignLeft, 10.5, theme().overflow);

    v->addWidget(dist_view_, 1);
    v->addWidget(cos_view_, 1);
    for (QChart* chart : {dist, cos}) connect(chart, &QChart::plotAreaChanged, this, [this] { plot_resized(); });
    return page;
}

QWidget* DivergencePanel::make_heat_page() {
    auto* page = new QWidget(this);
    auto* v = new QVBoxLayout(page);
    v->setContentsMargins(0, 0, 0, 0);
    v->setSpacing(0);
    auto add = [&](HeatChartView*& out, DivergenceMetric metric, const QString& title, bool step_title) {
        auto* row = new QWidget(page);
        auto* h = new QHBoxLayout(row);
        h->setContentsMargins(0, 0, 0, 0);
        h->setSpacing(0);
        out = new HeatChartView(metric, title, step_title, row);
        h->addWidget(out, 1);
        h->addWidget(out->bar());
        v->addWidget(row, 1);
    };
    add(dist_heat_, DivergenceMetric::rel_dist, "weight distance", false);
    add(cos_heat_, DivergenceMetric::grad_cos, "grad cosine", true);
    connect(dist_heat_->chart(), &QChart::plotAreaChanged, this, [this] { plot_resized(); });
    return page;
}

// The lines take chart_kit's columns; a heat map's cells are painted into an
// image, cheap enough for a column per pixel.
int DivergencePanel::shown_columns() const {
    if (!heat_map_shown()) return plot_columns(dist_view_);
    return std::max(16, static_cast<int>(dist_heat_->chart()->plotArea().width()));
}

// A plot that changed width is decimated again for its new number of pixel
// columns (a panel is often laid out after its first snapshot); otherwise
// only its labels are fitted to its new height.
void DivergencePanel::plot_resized() {
    if (have_run_ && !redrawing_ && shown_columns() != drawn_columns_)
        redraw();
    else
        fit_axes();
}

void DivergencePanel::show_heat_map(bool heat) { (heat ? heat_button_ : lines_button_)->setChecked(true); }

bool DivergencePanel::heat_map_shown() const { return heat_button_->isChecked(); }

void DivergencePanel::show_snapshot(const SessionSnapshot& snapshot) {
    const RunView& run = snapshot.main;
    if (!run.config) return;
    log_ = run.log;
    twin_ = run.config->twin;
    layer_names_ = run.layer_names;
    // Past a dozen layers the lines tangle (a transformer has 30-60 tensors):
    // the heat map shows them, one row each, until the user picks a view.
    if (!view_chosen_) show_heat_map(layer_names_.size() > kMostLines);
    no_twin_text_ = snapshot.record && !twin_ ? record_gap_text(RecordGap::twin, *snapshot.record) : std::string();
    have_run_ = true;
    redraw();
}

void DivergencePanel::redraw() {
    if (!have_run_) return;
    redrawing_ = true;
    const struct Done {
        bool& flag;
        ~Done() { flag = false; }
    } done{redrawing_};
    const bool heat = heat_map_shown();
    const int columns = shown_columns();
    drawn_columns_ = columns;
    auto view = std::make_shared<const DivergenceView>(make_divergence_view(log_, twin_, columns, layer_names_));
    summary_->set_text(QString::fromStdString(view->summary));
    if (view->layers.empty()) {
        message_->setText(QString::fromStdString(no_twin_text_.empty() ? view->summary : no_twin_text_));
        pages_->setCurrentWidget(message_);
        summary_->hide();
        key_->clear();
        lines_view_.reset();
        return;
    }
    summary_->show();
    lines_view_ = heat ? nullptr : view;
    key_->setText(heat ? "each cell: its worst step (largest distance, smallest cosine)" : layer_key(view->layers));
    if (heat) {
        pages_->setCurrentIndex(1);
        dist_heat_->show_view(view);
        cos_heat_->show_view(view);
    } else {
        pages_->setCurrentIndex(0);
        show_lines(*view);
    }
}

void DivergencePanel::match_layer_series(std::size_t layers) {
    auto add = [](QChartView* view, std::vector<ChartLine>& lines, QAbstractAxis* x, QAbstractAxis* y) {
        auto* s = new QLineSeries();
        const std::size_t i = lines.size();
        s->setName(QString("fc%1").arg(i + 1));
        QPen pen(layer_colour(i));
        pen.setWidthF(line_width(2));
        s->setPen(pen);
        lines.push_back(add_line(view->chart(), s, x, y));
    };
    while (dist_lines_.size() < layers) add(dist_view_, dist_lines_, dist_x_, dist_y_);
    while (cos_lines_.size() < layers) add(cos_view_, cos_lines_, cos_x_, cos_y_);
    for (auto* lines : {&dist_lines_, &cos_lines_}) {
        while (lines->size() > layers) {
            remove_line(lines->back());
            lines->pop_back();
        }
    }
}

void DivergencePanel::show_lines(const DivergenceView& v) {
    match_layer_series(v.layers.size());
    for (std::size_t i = 0; i < v.layers.size(); ++i) {
        dist_lines_[i].item->set_points(log10_points(v.layers[i].rel_dist));
        cos_lines_[i].item->set_points(v.layers[i].grad_cos);
    }
    dist_gaps_->set_note(QString::fromStdString(v.rel_dist_gaps));
    cos_gaps_->set_note(QString::fromStdString(v.grad_cos_gaps));
    set_step_range(dist_x_, v.step_min, v.step_max);
    set_step_range(cos_x_, v.step_min, v.step_max);
    // A little room above cosine 1 keeps agreeing gradients off the plot's frame
    // (and the tick at 1 inside the range despite rounding).
    cos_y_->setRange(v.cos_min - 1e-9, v.cos_max + 0.03 * (v.cos_max - v.cos_min));
    fit_axes();
}

// Labels as many as the plots' heights hold, and plot areas aligned; again
// whenever the plots change size.
void DivergencePanel::fit_axes() {
    if (!lines_view_) return;
    const DivergenceView& v = *lines_view_;
    // The colour scale's ticks are placed on the same decades (0 = rel_dist_min .. 1 = rel_dist_max).
    set_decade_labels(dist_y_, std::round(std::log10(v.rel_dist_min)), std::round(std::log10(v.rel_dist_max)),
                      v.rel_dist_heat.ticks, label_room(dist_view_));
    set_cosine_ticks(cos_y_, v.cos_min, v.cos_max, label_room(cos_view_));
    fit_axis_title(dist_y_, {"weight distance", "distance"}, dist_view_->chart()->plotArea().height());
    fit_axis_title(cos_y_, {"grad cosine", "cosine"}, cos_view_->chart()->plotArea().height());
    align_plot_areas();
}

// The two charts share the step axis: their plot areas start at the same x
// whatever the width of their y labels.
void DivergencePanel::align_plot_areas() {
    QChart* a = dist_view_->chart();
    QChart* b = cos_view_->chart();
    const qreal base = kChartMargin;
    const qreal la = a->plotArea().left() - (a->margins().left() - base);
    const qreal lb = b->plotArea().left() - (b->margins().left() - base);
    const qreal left = std::max(la, lb);
    for (auto [chart, own] : {std::pair{a, la}, std::pair{b, lb}}) {
        QMargins m = chart->margins();
        const int wanted = static_cast<int>(std::lround(base + left - own));
        if (m.left() == wanted) continue;
        m.setLeft(wanted);
        chart->setMargins(m);
    }
}

}  // namespace plab::qt
