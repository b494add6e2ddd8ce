#include "ui/qt/main_window.h"

#include <QApplication>
#include <QClipboard>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QKeySequence>
#include <QMenuBar>
#include <QMessageBox>
#include <QProgressDialog>
#include <QScreen>
#include <QSettings>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QToolBar>
#include <algorithm>
#include <filesystem>

#include "engine/backend/backend_choice.h"
#include "engine/common/error.h"
#include "engine/train/preset_io.h"
#include "engine/train/preset_rules.h"
#include "engine/train/trainer_factory.h"
#include "ui/records/run_export.h"
#include "ui/present/histogram_view.h"
#include "ui/present/live_keys.h"
#include "ui/present/loss_curves.h"
#include "ui/present/preset_about.h"
#include "ui/present/record_notes.h"
#include "ui/present/run_progress.h"
#include "ui/present/scaler_snippet.h"
#include "ui/present/scenario_view.h"
#include "ui/qt/bit_layout_panel.h"
#include "ui/qt/chart_kit.h"
#include "ui/qt/decision_panel.h"
#include "ui/qt/divergence_panel.h"
#include "ui/qt/events_panel.h"
#include "ui/qt/histogram_panel.h"
#include "ui/qt/live_text.h"
#include "ui/qt/loss_panel.h"
#include "ui/qt/nan_panel.h"
#include "ui/qt/samples_panel.h"
#include "ui/qt/plot_export.h"
#include "ui/qt/scale_panel.h"
#include "ui/qt/scenario_panel.h"
#include "ui/qt/speed_memory_panel.h"
#include "ui/qt/sweep_panel.h"

namespace plab::qt {

namespace {

// Steps between decision-boundary grids: a grid costs a handful of steps of
// the default preset, so one every 200 steps adds a few percent (docs/perf.md).
constexpr int kBoundaryEvery = 200;

// Each session gets its own backend: while another preset loads, the old
// session's worker may still be using its own.
// `backend` is "cpu" or "cuda" (make_run_backend's names).
std::unique_ptr<Session> make_session(const RunConfig& config, const std::string& backend) {
    TrainerOptions options;
    options.boundary_every = kBoundaryEvery;
    std::shared_ptr<Backend> device = make_run_backend(backend);
    return std::make_unique<Session>(config, trainer_factory(std::move(device), options));
}

// A person pressed Cancel while a record was read: nothing went wrong.
struct OpeningCancelled : Error {
    using Error::Error;
};

QString text_of(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

// A tooltip of a long line, as rich text so that Qt wraps it instead of
// stretching it across the screen.
QString wrapped_tip(const std::string& text) { return "<p>" + QString::fromStdString(text).toHtmlEscaped() + "</p>"; }

// Whether any of the widget is inside its window. A dock on a tab behind
// another is not hidden: QMainWindow moves it out of the window instead, so
// isVisible() alone would have it drawn every frame, unseen.
bool on_screen(const QWidget* w) {
    if (!w->isVisible()) return false;
    QRect r = w->rect();
    for (; !w->isWindow(); w = w->parentWidget()) {
        r = r.translated(w->pos()) & w->parentWidget()->rect();
        if (r.isEmpty()) return false;
    }
    return true;
}

}  // namespace

MainWindow::MainWindow(const std::string& preset, bool use_settings, QWidget* parent)
    : QMainWindow(parent),
      preset_(preset),
      base_config_(load_preset(preset)),
      use_settings_(use_settings) {
    session_ = make_session(base_config_, "cpu");
    setWindowTitle("Precision Lab");
    setDockNestingEnabled(true);
    make_panels();
    make_toolbar();
    make_menus();
    status_ = new LiveText(LiveText::Wrap::none, this);
    statusBar()->addWidget(status_, 1);
    // A message takes the status line's place while it shows, rather than being drawn over it.
    connect(statusBar(), &QStatusBar::messageChanged, this, [this](const QString& m) { status_->setVisible(m.isEmpty()); });
    size_docks();
    if (use_settings_) restore_layout();
    connect(&frame_timer_, &QTimer::timeout, this, [this] {
        pace();
        refresh();
    });
    play_clock_.start();
    frame_timer_.start(16);  // ~60 frames per second
    refresh();
    // The window itself holds the focus when it opens, not the first field of
    // the tab order (the bit layout's Value box, which would take a Space as
    // text): the first key pressed reaches the toolbar's shortcuts.
    setFocus();
}

MainWindow::~MainWindow() {
    if (use_settings_) save_layout();
}

// The panels, in the order of panels_ (make_panels docks them in that order).
std::vector<Panel*> MainWindow::make_panel_widgets(Panel* sweep) {
    bits_ = new BitLayoutPanel(this);
    scale_ = new ScalePanel([this](const std::string& a) { edit(a); }, this);
    auto* hist = new HistogramPanel([this](float x) { bits_->set_value(x); }, this);
    auto* loss = new LossPanel(this);
    auto* divergence = new DivergencePanel(this);
    auto* events = new EventsPanel([this, hist](std::int64_t step) { jump_to(hist, step); }, this);
    auto* nan = new NanPanel(
        [this](std::int64_t at, const std::vector<std::string>& changes) {
            fork_and_train(at, changes);
            report(QString("Forked at step %1%2: both runs train side by side.")
                       .arg(at)
                       .arg(changes.empty() ? QString() : " with " + QString::fromStdString(changes.front()) +
                                                              (changes.size() > 1 ? " …" : "")));
        },
        [this](std::int64_t step) {
            if (!record_) session_->trace(step);  // a record's own nan line stands for the trace
        },
        this);
    auto* decision = new DecisionPanel(kBoundaryEvery, this);
    auto* scenario = new ScenarioPanel(
        [this](std::int64_t at, const std::vector<std::string>& changes) {
            fork_and_train(at, changes);
            report(QString("Trying %1 side by side: a fork from step %2.")
                       .arg(QString::fromStdString(changes.empty() ? std::string("no change") : changes.front()))
                       .arg(at));
        },
        [this] { start_from_zero(); }, this);
    auto* speed = new SpeedMemoryPanel(this);
    auto* samples = new SamplesPanel(this);
    if (!sweep)
        sweep = new SweepPanel(
            [this] { return base_config_; },
            [this](const std::vector<std::string>& settings) {
                fork_and_train(0, settings);
                dock_of(panel("loss"))->raise();  // the curves: the sweep shares the loss panel's place
            },
            [this] { return backend_choice_; }, this);
    return {hist, scale_, loss, bits_, divergence, events, nan, decision, scenario, speed, samples, sweep};
}

void MainWindow::make_panels() {
    panels_ = make_panel_widgets();
    auto* loss = panels_[2];
    auto* divergence = panels_[4];
    auto* events = panels_[5];
    auto* nan = panels_[6];
    auto* decision = panels_[7];
    auto* scenario = panels_[8];
    auto* speed = panels_[9];
    auto* samples = panels_[10];
    auto* sweep = panels_[11];
    const Qt::DockWidgetArea area[] = {Qt::LeftDockWidgetArea,  Qt::RightDockWidgetArea, Qt::RightDockWidgetArea,
                                       Qt::LeftDockWidgetArea,  Qt::RightDockWidgetArea, Qt::LeftDockWidgetArea,
                                       Qt::RightDockWidgetArea, Qt::RightDockWidgetArea, Qt::LeftDockWidgetArea,
                                       Qt::RightDockWidgetArea, Qt::LeftDockWidgetArea,  Qt::RightDockWidgetArea};
    for (std::size_t i = 0; i < panels_.size(); ++i) {
        // Tabs and menus read '&' as a shortcut mark: "&&" shows one.
        auto* dock = new QDockWidget(QString(panels_[i]->title()).replace("&", "&&"), this);
        dock->setObjectName("dock-" + panels_[i]->id());  // the key saveState() stores the layout under
        dock->setWidget(panels_[i]);
        dock->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable |
                          QDockWidget::DockWidgetFloatable);
        addDockWidget(area[i], dock);
        // By place, not pointer: a theme switch puts new panels in the docks.
        connect(dock, &QDockWidget::visibilityChanged, this, [this, i](bool visible) {
            if (visible && shown_) show_in(panels_[i], *shown_);
        });
    }
    // Divergence shares the loss panel's place and Events the bit layout's, as tabs.
    tabifyDockWidget(dock_of(loss), dock_of(divergence));
    tabifyDockWidget(dock_of(bits_), dock_of(events));
    tabifyDockWidget(dock_of(loss), dock_of(nan));
    tabifyDockWidget(dock_of(loss), dock_of(decision));
    tabifyDockWidget(dock_of(bits_), dock_of(scenario));
    tabifyDockWidget(dock_of(loss), dock_of(speed));
    tabifyDockWidget(dock_of(bits_), dock_of(samples));
    tabifyDockWidget(dock_of(loss), dock_of(sweep));
    dock_of(loss)->raise();
    if (projector()) lay_out_for_projector(true);
    // A scenario preset opens on its guide and the panels it names; any other on the bit layout.
    if (base_config_.guide.empty())
        dock_of(projector() ? panels_[0] : bits_)->raise();
    else
        show_guided_panels(base_config_.guide);
    focus_histograms(base_config_);
}

// The panels a guide's "Look at" names, the first named on top of its tab
// group, then the guide itself on top of its own.
void MainWindow::show_guided_panels(const std::string& guide) {
    const std::vector<std::string> named = looked_at_panels(guide);
    for (auto it = named.rbegin(); it != named.rend(); ++it)
        if (Panel* p = panel(QString::fromStdString(*it))) show_panel(p);
    show_panel(panel("scenario"));
}

// Projector mode, as the live view's: four large charts. The bit layout's
// tab group (bit layout, events, scenario, samples) joins the histograms'
// tabs, so the histograms have the left column's height for their larger
// labels; the normal layout puts it back below them.
void MainWindow::lay_out_for_projector(bool on) {
    QDockWidget* histograms = dock_of(panels_[0]);
    QDockWidget* bits = dock_of(bits_);
    const std::vector<QDockWidget*> group = tabified_with(bits);
    if (on) {
        tabifyDockWidget(histograms, bits);
        for (QDockWidget* d : group) tabifyDockWidget(histograms, d);
    } else {
        // Out of the tabs first: split beside a tabbed dock, Qt adds a tab.
        for (QDockWidget* d : group) removeDockWidget(d);
        removeDockWidget(bits);
        addDockWidget(Qt::LeftDockWidgetArea, bits, Qt::Vertical);
        bits->show();
        for (QDockWidget* d : group) {
            tabifyDockWidget(bits, d);
            d->show();
        }
    }
    histograms->raise();
    // The loss scale's chart shares its width with the scaler's controls:
    // on a projector it takes more of the right column's height. Once the
    // window has its size: docks resized before that keep their first split.
    QTimer::singleShot(0, this, [this, on] {
        const int h = height();
        const int scale_h = on ? h * 11 / 20 : h / 2;
        resizeDocks({dock_of(panels_[1]), dock_of(panels_[2])}, {scale_h, h - scale_h}, Qt::Vertical);
    });
}

// The docks in a tab group with `dock` (itself not included).
std::vector<QDockWidget*> MainWindow::tabified_with(QDockWidget* dock) {
    std::vector<QDockWidget*> group;
    for (QDockWidget* d : tabifiedDockWidgets(dock))
        if (d != dock_of(panels_[0])) group.push_back(d);
    return group;
}

// The histogram tensor and layer a preset's guide looks at; none for a preset
// without one, so that an earlier scenario's layer does not stay chosen.
void MainWindow::focus_histograms(const RunConfig& config) {
    if (auto* histograms = dynamic_cast<HistogramPanel*>(panel("histograms")))
        histograms->look_at(looked_at_histogram(config.guide, telemetry_layer_names(config.model)));
}

// Charts take the theme's colours when they are made, so a switch makes the
// panels again in their docks (layout, run and session untouched; a panel's
// own choices, such as the histogram's layer, start over).
void MainWindow::apply_theme(bool dark) {
    set_dark_theme(dark);
    const std::vector<Panel*> old = panels_;
    const float inspected = bits_->value();  // the value a person was looking at stays
    // The sweep panel stays: it draws with the theme when it paints, and
    // made again it would drop a grid's results (a training sweep with them).
    panels_ = make_panel_widgets(panel("sweep"));
    bits_->set_value(inspected);
    for (std::size_t i = 0; i < old.size(); ++i) {
        if (old[i] == panels_[i]) continue;
        old[i]->hide();
        dock_of(old[i])->setWidget(panels_[i]);
        old[i]->deleteLater();
    }
    focus_histograms(base_config_);
    redraw();
}

QDockWidget* MainWindow::dock_of(Panel* panel) { return static_cast<QDockWidget*>(panel->parentWidget()); }

void MainWindow::show_panel(Panel* panel) {
    QDockWidget* dock = dock_of(panel);
    dock->show();
    dock->raise();
}

void MainWindow::jump_to(HistogramPanel* histograms, std::int64_t step) {
    // An opened record holds its newest steps' histograms; an older step's are read again from its file.
    std::shared_ptr<const StepRecord> older;
    if (record_ && !histogram_record(record_snapshot_->main.log, step)) {
        try {
            older = histograms_at(*record_, step);
        } catch (const Error& e) {
            report(QString::fromStdString(e.what()));
        }
    }
    histograms->focus_step(step, older);
    show_panel(histograms);
    report(QString("Histograms at step %1 (or the last histogram step before it); "
                   "'latest' in the histogram panel follows the run again.").arg(step));
}

void MainWindow::size_docks() {
    // The histograms are what people come for: most of the left column.
    resizeDocks({dock_of(panels_[0]), dock_of(panels_[3])}, {64, 36}, Qt::Vertical);
    resizeDocks({dock_of(panels_[1]), dock_of(panels_[2])}, {50, 50}, Qt::Vertical);
    resizeDocks({dock_of(panels_[0]), dock_of(panels_[1])}, {55, 45}, Qt::Horizontal);
}

void MainWindow::make_toolbar() {
    QToolBar* bar = addToolBar("Run");
    bar->setObjectName("toolbar-run");
    bar->addWidget(new QLabel(" Preset ", bar));
    presets_ = new QComboBox(bar);
    // Each entry of the list tells what its preset shows, on hover.
    for (const PresetInfo& p : list_presets()) {
        presets_->addItem(QString::fromStdString(p.name));
        presets_->setItemData(presets_->count() - 1, wrapped_tip(preset_about(p)), Qt::ToolTipRole);
    }
    presets_->setCurrentText(QString::fromStdString(preset_));
    connect(presets_, &QComboBox::activated, this, [this](int i) { load(presets_->itemText(i).toStdString()); });
    bar->addWidget(presets_);
    bar->addWidget(new QLabel(" Recipe ", bar));
    recipe_ = new QComboBox(bar);
    for (Recipe r : kAllRecipes) recipe_->addItem(text_of(recipe_name(r)));
    recipe_->setToolTip("Precision recipe: a new run from step 0 (the scaler follows the recipe's default)");
    connect(recipe_, &QComboBox::activated, this, [this](int i) {
        start(recipe_config(base_config_, kAllRecipes[i]), "recipe " + recipe_->itemText(i));
    });
    bar->addWidget(recipe_);
    bar->addWidget(new QLabel(" Seed ", bar));
    seed_ = new QSpinBox(bar);
    seed_->setRange(0, 1000000000);
    seed_->setToolTip("Seed of data, initialisation and batch order: a new run from step 0");
    connect(seed_, &QSpinBox::editingFinished, this, [this] {
        if (static_cast<std::uint64_t>(seed_->value()) == base_config_.seed) return;
        RunConfig c = base_config_;
        c.seed = static_cast<std::uint64_t>(seed_->value());
        start(c, QString("seed %1").arg(seed_->value()));
    });
    bar->addWidget(seed_);
    bar->addWidget(new QLabel(" Backend ", bar));
    bar->addWidget(make_backend_box(bar));
    bar->addSeparator();
    auto add = [&](const QString& text, const QKeySequence& key, const QString& tip, auto fn) {
        QAction* a = bar->addAction(text);
        a->setShortcut(key);
        a->setToolTip(tip + " (" + key.toString() + ")");
        connect(a, &QAction::triggered, this, fn);
        return a;
    };
    play_ = add("▶ Play", QKeySequence(Qt::Key_Space), "Train until the preset's steps, at the pace beside it", [this] {
        paced_.play(*session_, pace_rate(), play_clock_.elapsed() / 1000.0);
    });
    // Checked while a run trains: the button shows the playing state.
    play_->setCheckable(true);
    run_actions_.push_back(play_);
    run_actions_.push_back(add("Pause", QKeySequence(Qt::Key_P), "Pause at the next step boundary", [this] {
        paced_.stop();
        session_->pause();
    }));
    // A step command stops play (Session::step), a paced one too.
    auto step = [this](std::int64_t n) {
        paced_.stop();
        session_->step(n);
    };
    run_actions_.push_back(add("Step", QKeySequence(Qt::Key_S), "One optimizer step", [step] { step(1); }));
    run_actions_.push_back(add("Step 100", QKeySequence(Qt::SHIFT | Qt::Key_S), "A hundred optimizer steps",
                               [step] { step(100); }));
    reset_ = add("⟲ Reset", QKeySequence(Qt::CTRL | Qt::Key_R), "Back to step 0 of this run's config", [this] {
        if (record_) {
            set_what_if({});
            report("The recorded run alone again: the what-if is cleared.");
            return;
        }
        paced_.stop();
        session_->reset();
    });
    run_actions_.push_back(add("Fork", QKeySequence(Qt::CTRL | Qt::Key_F), "A second run from this step, trained alongside",
                               [this] { session_->fork(session_->snapshot()->step); }));
    bar->addWidget(new QLabel(" Pace ", bar));
    pace_ = new QComboBox(bar);
    for (const PaceChoice& c : pace_choices()) pace_->addItem(c.label);
    pace_->setCurrentIndex(static_cast<int>(remembered_pace()));
    pace_->setToolTip("How fast Play trains: steps a second (a teaching pace), or as fast as the CPU can");
    connect(pace_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (use_settings_) QSettings().setValue("run/pace", QString(pace_choices()[static_cast<std::size_t>(i)].label));
    });
    bar->addWidget(pace_);
    run_widgets_ = {recipe_, seed_, backend_, pace_};
    show_config_in_toolbar();
}

void MainWindow::show_config_in_toolbar() {
    const QSignalBlocker b1(recipe_), b2(seed_), b3(presets_);
    recipe_->setCurrentText(text_of(recipe_name(base_config_.precision.recipe)));
    seed_->setValue(static_cast<int>(base_config_.seed));
    // A preset opened from a file is not in the library's list: it joins it,
    // so that the chooser names what runs (and can go back to it).
    const QString name = QString::fromStdString(preset_);
    if (presets_->findText(name) < 0) presets_->addItem(name);
    presets_->setCurrentText(name);
    // The closed chooser tells what the current preset shows: its tooltip, and
    // the status bar while the pointer is over it.
    const std::string about = preset_line(preset_, base_config_.description);
    presets_->setToolTip(wrapped_tip(about));
    presets_->setStatusTip(QString::fromStdString(about));
}

void MainWindow::show_fitted(QSize wanted) {
    show();
    QApplication::processEvents();
    if (const QScreen* s = screen()) wanted = wanted.boundedTo(s->availableGeometry().size());
    resize(wanted.expandedTo(minimumSizeHint()));
}

// A scenario's Start: the run again from step 0 (its fork gone), playing at
// the chosen pace.
void MainWindow::start_from_zero() {
    if (record_) {
        report("A record replays what it recorded: open a preset to train it again.");
        return;
    }
    paced_.stop();
    session_->reset();
    play_->trigger();
}

// A remedy or a "Try" from a panel: the fork trains at once beside the run,
// at the chosen pace, whether the run was playing, paused or done.
void MainWindow::fork_and_train(std::int64_t at, const std::vector<std::string>& changes) {
    session_->fork(at, changes);
    if (!record_ && !paced_.active() && !session_->snapshot()->playing) play_->trigger();
}

double MainWindow::pace_rate() const {
    return pace_choices()[static_cast<std::size_t>(pace_->currentIndex())].steps_per_second;
}

// The pace chosen last time (QSettings), else the teaching default.
std::size_t MainWindow::remembered_pace() const {
    if (!use_settings_) return default_pace_choice();
    const auto found = find_pace_choice(QSettings().value("run/pace").toString().toStdString());
    return found ? *found : default_pace_choice();
}

// Paced play: the frame timer queues the steps the pace owes once the
// worker has done the previous ones, so the UI never waits and the queue
// never grows. Each run stops at its own planned steps, a fork going on
// after the main run.
void MainWindow::pace() {
    paced_.frame(*session_, pace_rate(), play_clock_.elapsed() / 1000.0);
}

void MainWindow::make_menus() {
    QMenu* file = menuBar()->addMenu("&File");
    QAction* open = file->addAction("&Open preset…");
    open->setShortcut(QKeySequence::Open);
    connect(open, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, "Open preset", QString(), "Presets (*.json)");
        if (!path.isEmpty()) load(path.toStdString());
    });
    QAction* open_run_action = file->addAction("Open &run… (a run record, JSONL)");
    open_run_action->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_O));
    connect(open_run_action, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, "Open run record", QString(),
                                                          "Run records (*.jsonl);;All files (*)");
        if (path.isEmpty()) return;
        try {
            open_run(path.toStdString(), true);
        } catch (const OpeningCancelled&) {
            report("Opening cancelled: the window shows what it showed.");
        } catch (const Error& e) {
            QMessageBox::warning(this, "Run not opened", QString::fromStdString(e.what()));
        }
    });
    QAction* save = file->addAction("&Save preset as…");
    save->setShortcut(QKeySequence::Save);
    connect(save, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getSaveFileName(this, "Save preset", "preset.json", "Presets (*.json)");
        if (path.isEmpty()) return;
        if (record_ && !record_->run.source.empty()) {
            report("A PyTorch record holds no lab preset; File > Export scaler settings copies its GradScaler.");
            return;
        }
        const auto s = snapshot();
        const RunConfig& current = s->main.config ? *s->main.config : base_config_;
        QFile out(path);
        if (!out.open(QIODevice::WriteOnly | QIODevice::Truncate) ||
            out.write(QByteArray::fromStdString(run_config_to_json(current, true) + "\n")) < 0) {
            QMessageBox::warning(this, "Preset not saved", "Cannot write " + path + ": " + out.errorString());
            return;
        }
        report("Saved the run's current config (live edits included) to " + path);
    });
    file->addSeparator();
    QAction* export_records = file->addAction("&Export run (JSONL, CSV)…");
    export_records->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_E));
    connect(export_records, &QAction::triggered, this, [this] { export_run(); });
    QMenu* plots = file->addMenu("Export &plot (PNG, SVG)");
    for (std::size_t i = 0; i < panels_.size(); ++i)
        connect(plots->addAction(QString(panels_[i]->title()).replace("&", "&&") + "…"), &QAction::triggered, this,
                [this, i] { export_plot(panels_[i]); });
    QMenu* snippets = file->addMenu("Export &scaler settings");
    connect(snippets->addAction("Copy as PyTorch torch.amp.GradScaler(…)"), &QAction::triggered, this,
            [this] { copy_snippet(Snippet::grad_scaler); });
    connect(snippets->addAction("Copy as DeepSpeed \"fp16\" JSON block"), &QAction::triggered, this,
            [this] { copy_snippet(Snippet::deepspeed); });
    connect(snippets->addAction("Copy as Hugging Face TrainingArguments(…)"), &QAction::triggered, this,
            [this] { copy_snippet(Snippet::training_arguments); });
    file->addSeparator();
    QAction* quit = file->addAction("&Quit");
    quit->setShortcut(QKeySequence::Quit);
    connect(quit, &QAction::triggered, this, &QWidget::close);
    QMenu* view = menuBar()->addMenu("&View");
    for (QDockWidget* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
    view->addSeparator();
    QAction* dark = view->addAction("&Dark theme");
    dark->setCheckable(true);
    dark->setChecked(theme().dark);
    connect(dark, &QAction::toggled, this, [this](bool on) {
        apply_theme(on);
        if (use_settings_) QSettings().setValue("theme/dark", on);
        report(on ? "Dark theme." : "Light theme.");
    });
    QAction* big = view->addAction("&Projector mode");
    big->setCheckable(true);
    big->setChecked(projector());
    big->setShortcut(Qt::Key_F8);
    connect(big, &QAction::toggled, this, [this](bool on) {
        set_projector(on);
        apply_theme(theme().dark);  // the panels made again at the new size
        lay_out_for_projector(on);
        if (use_settings_) QSettings().setValue("theme/projector", on);
        report(on ? "Projector mode: fonts and lines 1.5 times larger." : "Projector mode off.");
    });
}

// CPU, and the GPU by its name when this build and machine have one; the
// GPU entry is there but disabled otherwise, its tooltip saying why.
QComboBox* MainWindow::make_backend_box(QWidget* parent) {
    backend_ = new QComboBox(parent);
    backend_->addItem("CPU (exact emulation)", "cpu");
    const std::string why = cuda_unavailable_reason();
    QString gpu = "GPU";
    if (why.empty()) {
        try {
            gpu = QString::fromStdString(make_run_backend("cuda")->name());
        } catch (const Error& e) {
            gpu = "GPU (" + QString::fromStdString(e.what()) + ")";
        }
    }
    backend_->addItem(why.empty() ? gpu : "GPU: " + QString::fromStdString(why), "cuda");
    if (!why.empty()) {
        auto* model = qobject_cast<QStandardItemModel*>(backend_->model());
        if (model) model->item(1)->setEnabled(false);
    }
    backend_->setToolTip(why.empty() ? "Where the runs train: a new run from step 0 on the chosen backend"
                                     : "Where the runs train. GPU: " + QString::fromStdString(why) +
                                           ", so the runs train on the CPU's exact emulation");
    connect(backend_, &QComboBox::activated, this, [this](int i) {
        const std::string chosen = backend_->itemData(i).toString().toStdString();
        if (chosen == backend_choice_) return;
        const std::string before = backend_choice_;
        backend_choice_ = chosen;
        if (!start(base_config_, "on " + backend_->itemText(i))) {  // a failed GPU start falls back, visibly
            backend_choice_ = before;
            backend_->setCurrentIndex(backend_->findData(QString::fromStdString(before)));
        }
    });
    return backend_;
}

bool MainWindow::start(const RunConfig& config, const QString& what) {
    try {
        session_ = make_session(config, backend_choice_);  // its first run validates the config (plab::Error)
        base_config_ = config;
        record_.reset();
        record_snapshot_.reset();
        what_if_.clear();
        show_record_mode();
        paced_.stop();
        shown_.reset();
        show_config_in_toolbar();
        report("New run: " + what + ".");
        return true;
    } catch (const Error& e) {
        QMessageBox::warning(this, "Run not started", QString::fromStdString(e.what()));
        show_config_in_toolbar();
        return false;
    }
}

void MainWindow::load(const std::string& preset) {
    try {
        const RunConfig config = load_preset(preset);
        const std::string previous = preset_;
        preset_ = preset;
        if (!start(config, QString::fromStdString(preset_line(preset, config.description)))) {
            preset_ = previous;
            show_config_in_toolbar();
            return;
        }
        if (use_settings_) QSettings().setValue("run/preset", QString::fromStdString(preset));
        // A scenario preset brings its guide forward, as the window opens on one.
        if (!config.guide.empty()) show_guided_panels(config.guide);
        focus_histograms(config);
    } catch (const Error& e) {
        QMessageBox::warning(this, "Preset not loaded", QString::fromStdString(e.what()));
        show_config_in_toolbar();
    }
}

void MainWindow::export_run() {
    if (record_) {
        report("The run shown is a record already: " + QString::fromStdString(record_->file));
        return;
    }
    const auto s = session_->snapshot();
    if (s->step == 0) {
        report("Nothing to export yet: train a step first.");
        return;
    }
    const QString path = QFileDialog::getSaveFileName(this, "Export run", QString::fromStdString(preset_ + ".jsonl"),
                                                      "JSON Lines (*.jsonl);;CSV (*.csv)");
    if (path.isEmpty()) return;
    const bool csv = QFileInfo(path).suffix().compare("csv", Qt::CaseInsensitive) == 0;
    QProgressDialog progress("Replaying the run to write every record…", "Cancel", 0, static_cast<int>(s->step), this);
    progress.setWindowModality(Qt::WindowModal);
    progress.setMinimumDuration(300);
    try {
        const StepRecord last = plab::export_run(
            {base_config_, &s->main.log.edits, s->step, csv ? RecordFormat::csv : RecordFormat::jsonl,
             path.toStdString()},
            [&](std::int64_t done) {
                if (done % 64 == 0) {
                    progress.setValue(static_cast<int>(done));
                    QApplication::processEvents();
                }
                return !progress.wasCanceled();
            });
        progress.setValue(static_cast<int>(s->step));
        const StepRecord* shown = s->main.log.latest();
        if (shown && (shown->loss != last.loss || shown->scale_after != last.scale_after))
            QMessageBox::warning(this, "Export differs",
                                 "The replayed run ended with other values than the session shows; the file may "
                                 "not match what you saw.");
        report(QString("Exported %1 steps to %2").arg(s->step).arg(path));
    } catch (const std::exception& e) {
        progress.cancel();
        QMessageBox::warning(this, "Run not exported", QString::fromStdString(e.what()));
    }
}

void MainWindow::export_plot(Panel* panel) {
    const QString path = QFileDialog::getSaveFileName(this, "Export " + panel->title(), panel->id() + ".png",
                                                      "PNG image (*.png);;SVG drawing (*.svg)");
    if (path.isEmpty()) return;
    const QString error = save_widget_image(panel, path);
    if (!error.isEmpty()) {
        QMessageBox::warning(this, "Plot not exported", error);
        return;
    }
    report("Saved " + panel->title() + " to " + path);
}

void MainWindow::copy_snippet(Snippet kind) {
    const auto s = snapshot();
    // A record's what-if, when there is one, is what a person tuned it to.
    const RunView& run = s->record && s->fork ? *s->fork : s->main;
    const RunConfig& config = run.config ? *run.config : base_config_;
    ScalerSnippet snippet;
    QString title;
    switch (kind) {
        case Snippet::grad_scaler:
            snippet = pytorch_grad_scaler(config.scaler);
            title = "GradScaler copied";
            break;
        case Snippet::deepspeed:
            snippet = deepspeed_fp16_block(config.scaler);
            title = "DeepSpeed fp16 block copied";
            break;
        case Snippet::training_arguments:
            snippet = huggingface_training_arguments(config.precision, config.scaler);
            title = "TrainingArguments copied";
            break;
    }
    QApplication::clipboard()->setText(QString::fromStdString(snippet.code));
    QString message = QString::fromStdString(snippet.code);
    if (!snippet.note.empty()) message += "\n\nNote: " + QString::fromStdString(snippet.note);
    QMessageBox::information(this, title, message);
}

void MainWindow::report(const QString& message) { statusBar()->showMessage(message, 8000); }

void MainWindow::refresh() {
    std::shared_ptr<const SessionSnapshot> s = snapshot();
    // A run that comes to rest is shown again, its charts on their exact ranges.
    const bool live = s && (s->playing || paced_.active());
    if (play_->isChecked() != live) play_->setChecked(live);
    if (!s || (s == shown_ && live == shown_live_)) return;
    shown_ = s;
    shown_live_ = live;
    for (Panel* p : panels_) p->set_live(live);
    // Panels out of sight (a closed dock, a tab behind another) wait: they
    // catch up when they are shown (see make_panels).
    for (Panel* p : panels_)
        if (on_screen(p)) show_in(p, *s);
    status_->set_text(status_text(*s));
    if (s->errors != errors_seen_) {
        errors_seen_ = s->errors;
        report(QString::fromStdString(s->last_error));
    }
}

QString MainWindow::status_text(const SessionSnapshot& s) const {
    if (s.record) return QString::fromStdString(record_status_text(s));
    const RunView& run = s.main;
    QString text = QString("%1 · %2 · %3 · %4")
                       .arg(QString::fromStdString(preset_), text_of(recipe_name(base_config_.precision.recipe)),
                            QString::fromStdString(run_progress_text(s.step, run.config ? run.config->steps : 0)),
                            s.playing || paced_.active() ? "training" : "paused");
    if (const StepRecord* last = run.log.latest())
        text += QString(" · loss %1").arg(QString::fromStdString(loss_text(last->loss, 4)));  // "NaN", never "nan"
    if (s.fork) text += QString(" · fork from step %1").arg(s.fork->forked_at);
    return text;
}

std::shared_ptr<const SessionSnapshot> MainWindow::snapshot() const {
    return record_ ? record_snapshot_ : session_->snapshot();
}

// A scaler edit from the scale panel: a live edit of the session's runs, or
// on a record the what-if replayed on it.
void MainWindow::edit(const std::string& assignment) {
    if (!record_) {
        session_->set(assignment);
        return;
    }
    try {
        set_what_if(what_if_with(what_if_, assignment));
        report("What-if on the record: its loss scaler replayed with " + QString::fromStdString(assignment) +
               " (dashed); ⟲ Reset clears it.");
    } catch (const Error& e) {
        report(QString::fromStdString(e.what()));
    }
}

void MainWindow::set_what_if(std::vector<std::string> edits) {
    if (!record_) return;
    record_snapshot_ = record_snapshot(*record_, edits);  // throws on a bad edit: nothing changes
    what_if_ = std::move(edits);
    shown_.reset();
    refresh();
}

void MainWindow::open_run(const std::string& file, bool progress) {
    // A record of a long run of a large model takes a while to read: a bar
    // by bytes, shown after 300 ms, and Cancel.
    std::error_code ec;
    const double total = static_cast<double>(std::filesystem::file_size(file, ec));
    std::unique_ptr<QProgressDialog> dialog;
    if (progress && !ec && total > 0) {
        dialog = std::make_unique<QProgressDialog>("Reading " + QString::fromStdString(file) + "…", "Cancel", 0, 1000,
                                                   this);
        dialog->setWindowModality(Qt::WindowModal);
        dialog->setMinimumDuration(300);
    }
    auto opened = std::make_unique<OpenedRecord>(open_record(file, [&](std::uint64_t bytes) {
        if (!dialog) return;
        dialog->setValue(static_cast<int>(std::min(1000.0, 1000.0 * static_cast<double>(bytes) / total)));
        QApplication::processEvents();
        if (dialog->wasCanceled()) throw OpeningCancelled(file + ": opening cancelled");
    }));
    if (dialog) dialog->setValue(1000);
    std::shared_ptr<const SessionSnapshot> shown = record_snapshot(*opened);
    session_->pause();
    paced_.stop();
    record_ = std::move(opened);
    record_snapshot_ = std::move(shown);
    what_if_.clear();
    shown_.reset();
    show_record_mode();
    for (const std::string& w : record_->run.warnings) report(QString::fromStdString(w));
    if (record_->run.warnings.empty())
        report("Opened " + QString::fromStdString(file) + ": edit the loss scale settings to replay its scaler; "
               "choose a preset to train again.");
    refresh();
}

// The run controls train the session, so they rest while a record is shown;
// Reset then clears the record's what-if.
void MainWindow::show_record_mode() {
    const bool recorded = record_ != nullptr;
    for (QAction* a : run_actions_) a->setEnabled(!recorded);
    for (QWidget* w : run_widgets_) w->setEnabled(!recorded);
    if (reset_)
        reset_->setToolTip(recorded ? "Clear the what-if: the recorded run alone (Ctrl+R)"
                                    : "Back to step 0 of this run's config (Ctrl+R)");
    if (recorded) {  // the toolbar names no preset or recipe the record did not train with
        const QSignalBlocker b1(presets_), b2(recipe_);
        presets_->setPlaceholderText("(a recorded run)");
        presets_->setCurrentIndex(-1);
        recipe_->setPlaceholderText("—");
        recipe_->setCurrentIndex(record_->run.source.empty()
                                     ? recipe_->findText(text_of(recipe_name(record_->config.precision.recipe)))
                                     : -1);
    } else {
        show_config_in_toolbar();
    }
    setWindowTitle(recorded ? "Precision Lab — " + QFileInfo(QString::fromStdString(record_->file)).fileName() +
                                  " (recorded run)"
                            : "Precision Lab");
}

void MainWindow::show_in(Panel* panel, const SessionSnapshot& snapshot) {
    if (panel_update_)
        panel_update_(*panel, snapshot);
    else
        panel->show_snapshot(snapshot);
}

Panel* MainWindow::panel(const QString& id) const {
    for (Panel* p : panels_)
        if (p->id() == id) return p;
    return nullptr;
}

void MainWindow::save_layout() {
    QSettings settings;
    settings.setValue("window/geometry", saveGeometry());
    settings.setValue("window/state", saveState());
}

void MainWindow::restore_layout() {
    QSettings settings;
    restoreGeometry(settings.value("window/geometry").toByteArray());
    restoreState(settings.value("window/state").toByteArray());
}

}  // namespace plab::qt
