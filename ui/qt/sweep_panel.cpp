#include "ui/qt/sweep_panel.h"

#include <QApplication>
#include <QClipboard>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QMessageBox>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <atomic>
#include <limits>
#include <mutex>
#include <optional>

#include "engine/common/error.h"
#include "engine/sweep/sweep_runner.h"
#include "engine/train/preset_io.h"
#include "ui/present/sweep_snippets.h"
#include "ui/qt/chart_kit.h"

namespace plab::qt {

namespace {

// Few steps, so the default grid trains in about a second on two cores and
// shows the scaler's trade-off: a low start never overflows but grows late,
// a high one backs off in its first steps.
constexpr const char* kDefaultAxes[2][2] = {{"scaler.init_scale", "2^8,2^16,2^24"},
                                            {"scaler.growth_interval", "20,100,500"}};
constexpr int kDefaultSteps = 300;

// Viridis' ends and three stops between: ordered in lightness, readable in
// grey and by the common colour blindnesses, so "better" reads as "lighter".
QColor ramp(double t) {
    static const QColor stops[] = {{68, 1, 84}, {59, 82, 139}, {33, 145, 140}, {94, 201, 98}, {253, 231, 37}};
    const double x = std::clamp(t, 0.0, 1.0) * 4;
    const int i = std::min(3, static_cast<int>(x));
    const double f = x - i;
    const auto mix = [f](int a, int b) { return static_cast<int>(a + (b - a) * f + 0.5); };
    return {mix(stops[i].red(), stops[i + 1].red()), mix(stops[i].green(), stops[i + 1].green()),
            mix(stops[i].blue(), stops[i + 1].blue())};
}

QColor text_on(const QColor& fill) { return fill.lightnessF() > 0.55 ? Qt::black : Qt::white; }

QString qs(const std::string& s) { return QString::fromStdString(s); }

// A layout for a group of controls inside the panel's own, without a second margin.
template <typename Layout>
Layout* bare_layout(QWidget* box) {
    auto* layout = new Layout(box);
    layout->setContentsMargins(0, 0, 0, 0);
    return layout;
}

}  // namespace

// The heat map itself: labels from the view, one rectangle per cell,
// hatched while it trains, the best one outlined, a legend below.
class HeatMapCanvas : public QWidget {
public:
    using Clicked = std::function<void(std::size_t cell)>;
    HeatMapCanvas(Clicked clicked, QWidget* parent) : QWidget(parent), clicked_(std::move(clicked)) {
        setMinimumSize(240, 160);
        setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    }
    // The cell at `pos` (widget pixels), if any, as last painted.
    std::optional<std::size_t> cell_at(const QPoint& pos) const {
        for (std::size_t i = 0; i < cell_rects_.size(); ++i)
            if (cell_rects_[i].contains(pos)) return i;
        return std::nullopt;
    }
    void show_view(const SweepHeatMap* view) {
        view_ = view;
        update();
    }

protected:
    void paintEvent(QPaintEvent*) override;
    bool event(QEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override {
        const std::optional<std::size_t> cell = view_ ? cell_at(e->pos()) : std::nullopt;
        if (e->button() == Qt::LeftButton && cell && *cell < view_->cells.size()) clicked_(*cell);
    }

private:
    struct Layout {
        QRect grid;
        int row_label_width = 0;
    };
    Layout lay_out(const QFontMetrics& fm) const;
    void paint_labels(QPainter& p, const Layout& l) const;
    void paint_cells(QPainter& p, const Layout& l);
    void paint_legend(QPainter& p, const Layout& l) const;

    Clicked clicked_;
    const SweepHeatMap* view_ = nullptr;
    std::vector<QRect> cell_rects_;
};

HeatMapCanvas::Layout HeatMapCanvas::lay_out(const QFontMetrics& fm) const {
    Layout l;
    for (const std::string& r : view_->row_labels) l.row_label_width = std::max(l.row_label_width, fm.horizontalAdvance(qs(r)));
    if (l.row_label_width > 0) l.row_label_width += 10;
    const int line = fm.height();
    // Above: the column field and its values; left: the row field turned on its side, then the values.
    const int left = (view_->row_field.empty() ? 0 : line + 6) + l.row_label_width + 4;
    const int top = 2 * line + 8;
    const int bottom = 2 * line + 22;  // legend
    l.grid = QRect(left, top, std::max(10, width() - left - 8), std::max(10, height() - top - bottom));
    return l;
}

void HeatMapCanvas::paint_labels(QPainter& p, const Layout& l) const {
    const QFontMetrics fm = p.fontMetrics();
    const int cols = static_cast<int>(view_->column_labels.size()), rows = static_cast<int>(view_->row_labels.size());
    p.setPen(theme().text);
    p.drawText(QRect(l.grid.left(), 0, l.grid.width(), fm.height()), Qt::AlignCenter, qs(view_->column_field));
    for (int c = 0; c < cols; ++c) {
        const QRect r(l.grid.left() + l.grid.width() * c / cols, fm.height() + 4, l.grid.width() / cols, fm.height());
        p.drawText(r, Qt::AlignCenter, qs(view_->column_labels[c]));
    }
    for (int r = 0; r < rows; ++r) {
        const QRect box(l.grid.left() - l.row_label_width - 4, l.grid.top() + l.grid.height() * r / rows,
                        l.row_label_width, l.grid.height() / rows);
        p.drawText(box, Qt::AlignRight | Qt::AlignVCenter, qs(view_->row_labels[r]));
    }
    if (view_->row_field.empty()) return;
    p.save();
    p.translate(fm.height() / 2 + 2, l.grid.center().y());
    p.rotate(-90);
    p.drawText(QRect(-l.grid.height() / 2, -fm.height() / 2, l.grid.height(), fm.height()), Qt::AlignCenter,
               qs(view_->row_field));
    p.restore();
}

void HeatMapCanvas::paint_cells(QPainter& p, const Layout& l) {
    const int cols = static_cast<int>(view_->column_labels.size()), rows = static_cast<int>(view_->row_labels.size());
    cell_rects_.clear();
    for (int i = 0; i < static_cast<int>(view_->cells.size()); ++i) {
        const SweepCellView& cell = view_->cells[static_cast<std::size_t>(i)];
        const int r = i / cols, c = i % cols;
        const QRect box(l.grid.left() + l.grid.width() * c / cols, l.grid.top() + l.grid.height() * r / rows,
                        l.grid.width() * (c + 1) / cols - l.grid.width() * c / cols,
                        l.grid.height() * (r + 1) / rows - l.grid.height() * r / rows);
        cell_rects_.push_back(box);
        const QRect inner = box.adjusted(2, 2, -2, -2);
        const QColor fill = cell.value ? ramp(cell.colour) : theme().grid;
        p.fillRect(inner, fill);
        if (cell.pending) p.fillRect(inner, QBrush(theme().text, Qt::BDiagPattern));
        p.setPen(cell.pending || !cell.value ? theme().text : text_on(fill));
        p.drawText(inner, Qt::AlignCenter, qs(cell.text));
    }
    // The best cell last, so its outline lies over its neighbours' edges.
    if (!view_->best) return;
    p.setPen(QPen(theme().text, line_width(4)));
    p.setBrush(Qt::NoBrush);
    p.drawRect(cell_rects_[*view_->best].adjusted(1, 1, -2, -2));
}

void HeatMapCanvas::paint_legend(QPainter& p, const Layout& l) const {
    const QFontMetrics fm = p.fontMetrics();
    const int y = l.grid.bottom() + 10;
    const QString worst = qs(view_->worst_text), best = qs(view_->best_text);
    // A caption even when no cell has a finite value, but no scale without ends.
    const bool scale = !worst.isEmpty();
    const int bar_left = l.grid.left() + fm.horizontalAdvance(worst) + 8;
    const QRect bar(bar_left, y, std::max(20, l.grid.right() - fm.horizontalAdvance(best) - 8 - bar_left), 12);
    for (int x = 0; scale && x < bar.width(); ++x)
        p.fillRect(QRect(bar.left() + x, bar.top(), 1, bar.height()), ramp(static_cast<double>(x) / bar.width()));
    p.setPen(theme().text);
    p.drawText(QRect(l.grid.left(), y - 2, bar_left - l.grid.left() - 4, fm.height()), Qt::AlignRight, worst);
    p.drawText(QRect(bar.right() + 6, y - 2, fm.horizontalAdvance(best) + 4, fm.height()), Qt::AlignLeft, best);
    // The caption may be wider than the grid: it takes the whole width, and
    // a narrow dock cuts its end rather than both ends.
    const QString caption = qs(view_->title) + " · outlined: the best cell";
    p.drawText(QRect(0, y + 14, width(), fm.height()), Qt::AlignCenter, fm.elidedText(caption, Qt::ElideRight, width() - 4));
}

void HeatMapCanvas::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), theme().window);
    if (!view_ || view_->cells.empty()) {
        p.setPen(theme().text);
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, "Choose the axes and press Run: each cell trains the "
                                                               "preset with those settings.");
        return;
    }
    p.setRenderHint(QPainter::Antialiasing, false);
    const Layout l = lay_out(p.fontMetrics());
    paint_labels(p, l);
    paint_cells(p, l);
    paint_legend(p, l);
}

bool HeatMapCanvas::event(QEvent* e) {
    if (e->type() != QEvent::ToolTip || !view_) return QWidget::event(e);
    const auto* help = static_cast<QHelpEvent*>(e);
    if (const std::optional<std::size_t> i = cell_at(help->pos()); i && *i < view_->cells.size()) {
        QToolTip::showText(help->globalPos(), qs(view_->cells[*i].hover) + "\nclick: train it beside the run", this,
                           cell_rects_[*i]);
        return true;
    }
    QToolTip::hideText();
    e->ignore();
    return true;
}

// Written by the worker thread, read by the panel's timer.
struct SweepPanel::Work {
    std::shared_ptr<const SweepPlan> plan;
    std::atomic<bool> stop{false};
    std::atomic<std::int64_t> steps{0};
    std::mutex mutex;
    std::vector<std::optional<RunMeasures>> runs;  // mutex
    std::string error;                             // mutex
    bool done = false;                             // mutex
};

SweepPanel::SweepPanel(BaseConfig base, OpenCell open, BackendChoice backend, QWidget* parent)
    : Panel("sweep", "Sweep", parent), base_(std::move(base)), open_(std::move(open)), backend_(std::move(backend)) {
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(make_axis_controls());
    layout->addWidget(make_run_controls());
    message_ = body_label(this);
    message_->setObjectName("sweep-message");
    message_->setWordWrap(true);
    layout->addWidget(message_);
    // The map and the code it yields side by side: stacked, they would not
    // fit the dock's share of a small screen's height.
    auto* body = new QHBoxLayout;
    canvas_ = new HeatMapCanvas([this](std::size_t cell) { open_cell(cell); }, this);
    canvas_->setObjectName("sweep-heat-map");
    body->addWidget(canvas_, 3);
    body->addWidget(make_export(), 2);
    layout->addLayout(body, 1);
    poll_timer_.setInterval(100);
    connect(&poll_timer_, &QTimer::timeout, this, [this] { poll(); });
    redraw();
}

SweepPanel::~SweepPanel() {
    if (work_) work_->stop = true;
    if (worker_.joinable()) worker_.join();
}

QWidget* SweepPanel::make_axis_controls() {
    auto* box = new QWidget(this);
    auto* grid = bare_layout<QGridLayout>(box);
    QStringList paths;
    for (const std::string& p : setting_paths()) paths << qs(p);
    for (int a = 0; a < 2; ++a) {
        grid->addWidget(new QLabel(QString("Axis %1").arg(a + 1), box), a, 0);
        field_[a] = new QComboBox(box);
        field_[a]->setEditable(true);
        field_[a]->setInsertPolicy(QComboBox::NoInsert);
        // Sized to a typical path, not the longest, so the dock stays narrow.
        field_[a]->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
        field_[a]->setMinimumContentsLength(20);
        if (a == 1) field_[a]->addItem("");  // no second axis
        field_[a]->addItems(paths);
        field_[a]->setCurrentText(kDefaultAxes[a][0]);
        field_[a]->setToolTip(a == 0 ? "A preset field, as plab run --set names it"
                                     : "A second preset field (empty: one axis)");
        grid->addWidget(field_[a], a, 1);
        values_[a] = new QLineEdit(kDefaultAxes[a][1], box);
        values_[a]->setObjectName(QString("axis-%1-values").arg(a + 1));
        field_[a]->setObjectName(QString("axis-%1-field").arg(a + 1));
        values_[a]->setToolTip("Values, separated by commas (2^K for powers of two; [..] keeps a list together)");
        grid->addWidget(values_[a], a, 2);
    }
    grid->setColumnStretch(2, 1);
    return box;
}

QWidget* SweepPanel::make_run_controls() {
    auto* box = new QWidget(this);
    auto* rows = bare_layout<QVBoxLayout>(box);
    auto* row = new QHBoxLayout;
    rows->addLayout(row);
    row->addWidget(new QLabel("Steps", box));
    steps_ = new QSpinBox(box);
    steps_->setRange(1, 1000000);
    steps_->setValue(kDefaultSteps);
    steps_->setObjectName("sweep-steps");
    row->addWidget(steps_);
    row->addWidget(new QLabel("Seeds", box));
    seeds_ = new QLineEdit(box);
    seeds_->setPlaceholderText("preset's");
    seeds_->setToolTip("Train each cell once per seed: 1-5 or 1,3,7 (empty: the preset's seed)");
    seeds_->setMaximumWidth(80);
    row->addWidget(seeds_);
    run_ = new QPushButton("Run", box);
    connect(run_, &QPushButton::clicked, this, [this] {
        if (running())
            work_->stop = true;
        else
            start();
    });
    row->addWidget(run_);
    progress_ = new QProgressBar(box);
    progress_->setRange(0, 1);
    progress_->setValue(0);
    row->addWidget(progress_, 1);
    auto* second = new QHBoxLayout;
    rows->addLayout(second);
    second->addWidget(new QLabel("Show", box));
    metric_ = new QComboBox(box);
    for (SweepMetric m : kSweepMetrics) metric_->addItem(qs(std::string(sweep_metric_name(m))));
    connect(metric_, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
    second->addWidget(metric_);
    second->addWidget(new QLabel("best with skipped steps ≤", box));
    max_skipped_ = new QDoubleSpinBox(box);
    max_skipped_->setRange(0, 100);
    max_skipped_->setValue(5);
    max_skipped_->setSuffix("%");  // no space: a field holding one would read as a typed Space
    connect(max_skipped_, &QDoubleSpinBox::valueChanged, this, [this] { redraw(); });
    second->addWidget(max_skipped_);
    second->addStretch(1);
    return box;
}

QWidget* SweepPanel::make_export() {
    auto* box = new QWidget(this);
    auto* column = bare_layout<QVBoxLayout>(box);
    auto* top = new QHBoxLayout;
    best_ = body_label(box);
    best_->setWordWrap(true);
    top->addWidget(best_, 1);
    copy_ = new QPushButton("Copy", box);
    copy_->setToolTip("Copy the best cell's scaler settings as PyTorch and DeepSpeed code");
    connect(copy_, &QPushButton::clicked, this,
            [this] { QApplication::clipboard()->setText(snippets_->toPlainText()); });
    top->addWidget(copy_, 0, Qt::AlignTop);
    column->addLayout(top);
    snippets_ = new QPlainTextEdit(box);
    snippets_->setReadOnly(true);
    snippets_->setFont(QFont("monospace"));
    snippets_->setMinimumSize(160, snippets_->fontMetrics().height() * 5);
    column->addWidget(snippets_, 1);
    return box;
}

std::shared_ptr<const SweepPlan> SweepPanel::plan_from_controls() {
    std::vector<SweepAxis> axes;
    for (int a = 0; a < 2; ++a) {
        const QString field = field_[a]->currentText().trimmed();
        if (a == 1 && field.isEmpty()) continue;
        try {
            axes.push_back(parse_sweep_axis((field + "=" + values_[a]->text().trimmed()).toStdString()));
        } catch (const Error& e) {
            show_error(QString("Axis %1: %2").arg(a + 1).arg(qs(e.what())));
            return nullptr;
        }
    }
    try {
        const std::string seeds = seeds_->text().trimmed().toStdString();
        const PresetEdits edits{{}, steps_->value(), std::nullopt, std::nullopt};
        return std::make_shared<const SweepPlan>(
            plan_sweep(base_(), edits, axes, seeds.empty() ? std::vector<std::uint64_t>{} : parse_seed_list(seeds)));
    } catch (const Error& e) {
        show_error(qs(e.what()));
        return nullptr;
    }
}

bool SweepPanel::confirmed(const SweepPlan& plan) {
    if (plan.runs.size() <= kSweepRunsWithoutYes) return true;
    return QMessageBox::question(this, "Train a large sweep?",
                                 "The grid is " + qs(grid_size_text(plan)) + " of " +
                                     QString::number(plan.runs.front().config.steps) +
                                     " steps each. Train them all?") == QMessageBox::Yes;
}

void SweepPanel::open_cell(std::size_t cell) {
    if (!plan_ || cell >= plan_->cells.size()) return;
    const std::vector<std::string> settings = cell_run_settings(*plan_, cell);
    std::string text;
    for (const std::string& s : settings) text += (text.empty() ? "" : ", ") + s;
    message_->setText("Training " + qs(text) +
                      " beside the run (a fork from step 0): its loss and loss scale are drawn with the run's.");
    open_(settings);
}

bool SweepPanel::start() {
    if (running()) return false;
    const std::shared_ptr<const SweepPlan> plan = plan_from_controls();
    if (!plan || !confirmed(*plan)) return false;
    launch(plan);
    return true;
}

void SweepPanel::launch(std::shared_ptr<const SweepPlan> plan) {
    plan_ = std::move(plan);
    runs_.assign(plan_->runs.size(), std::nullopt);
    work_ = std::make_shared<Work>();
    work_->plan = plan_;
    work_->runs = runs_;
    ran_ = true;
    const std::int64_t steps = static_cast<std::int64_t>(plan_->runs.size()) * plan_->runs.front().config.steps;
    progress_->setRange(0, static_cast<int>(std::min<std::int64_t>(std::numeric_limits<int>::max(), steps)));
    progress_->setValue(0);
    run_->setText("Stop");
    message_->setText("Training " + qs(grid_size_text(*plan_)) + "…");
    // The worker owns a share of the state, so nothing it touches goes away under it.
    worker_ = std::thread([work = work_, backend = backend_()] {
        SweepRunOptions o;
        o.backend = backend;
        o.observer.finished = [&work](std::size_t run, const RunMeasures& m) {
            const std::lock_guard lock(work->mutex);
            work->runs[run] = m;
        };
        o.progress = [&work](std::int64_t done, std::size_t) { work->steps = done; };
        o.stop = [&work] { return work->stop.load(); };
        std::string error;
        try {
            run_sweep(*work->plan, o);
        } catch (const std::exception& e) {
            error = e.what();
        }
        const std::lock_guard lock(work->mutex);
        work->error = error;
        work->done = true;
    });
    poll_timer_.start();
    redraw();
}

void SweepPanel::poll() {
    if (!work_) return;
    bool done = false;
    {
        const std::lock_guard lock(work_->mutex);
        runs_ = work_->runs;
        done = work_->done;
    }
    progress_->setValue(static_cast<int>(std::min<std::int64_t>(progress_->maximum(), work_->steps.load())));
    redraw();
    if (done) finish();
}

void SweepPanel::finish() {
    poll_timer_.stop();
    if (worker_.joinable()) worker_.join();
    run_->setText("Run");
    const std::lock_guard lock(work_->mutex);
    if (!work_->error.empty())
        show_error("The sweep stopped: " + qs(work_->error));
    else if (work_->stop)
        message_->setText("Stopped: the cells that finished are shown.");
    else
        message_->setText("Done: " + qs(grid_size_text(*plan_)) + ". Hover a cell for its numbers.");
}

void SweepPanel::wait() {
    if (worker_.joinable()) worker_.join();
    poll();
}

void SweepPanel::settle_for_screenshot() {
    if (!ran_) start();
    wait();
}

void SweepPanel::redraw() {
    if (!plan_) {
        canvas_->show_view(nullptr);
        best_->setText("The best cell's scaler settings appear here as PyTorch and DeepSpeed code.");
        copy_->setEnabled(false);
        return;
    }
    view_ = make_heat_map(*plan_, runs_,
                          {kSweepMetrics[std::max(0, metric_->currentIndex())], max_skipped_->value()});
    canvas_->show_view(&view_);
    best_->setText(qs(view_.best_line));
    const std::string code = view_.best ? sweep_cell_snippets(*plan_, *view_.best) : std::string();
    if (snippets_->toPlainText() != qs(code)) snippets_->setPlainText(qs(code));
    copy_->setEnabled(!code.empty());
}

void SweepPanel::show_error(const QString& text) {
    message_->setText("<span style='color:#c0392b'>" + text.toHtmlEscaped() + "</span>");
}

}  // namespace plab::qt
