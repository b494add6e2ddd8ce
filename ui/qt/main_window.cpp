#include "ui/qt/main_window.h"

#include <QApplication>
#include <QDockWidget>
#include <QFileDialog>
#include <QKeySequence>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QStatusBar>
#include <QToolBar>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/common/error.h"
#include "engine/train/preset_io.h"
#include "engine/train/trainer_factory.h"
#include "ui/qt/bit_layout_panel.h"
#include "ui/qt/chart_kit.h"
#include "ui/qt/histogram_panel.h"
#include "ui/qt/loss_panel.h"
#include "ui/qt/scale_panel.h"

namespace plab::qt {

namespace {

// Each session gets its own backend: while a new preset loads, the old
// session's worker may still be using its own.
std::unique_ptr<Session> make_session(const std::string& preset) {
    return std::make_unique<Session>(load_preset(preset), trainer_factory(std::make_shared<CpuBackend>()));
}

}  // namespace

MainWindow::MainWindow(const std::string& preset, bool use_settings, QWidget* parent)
    : QMainWindow(parent), session_(make_session(preset)), preset_(preset), use_settings_(use_settings) {
    setWindowTitle("Precision Lab");
    setDockNestingEnabled(true);
    make_panels();
    make_toolbar();
    make_menus();
    status_ = new QLabel(this);
    statusBar()->addWidget(status_, 1);
    size_docks();
    if (use_settings_) restore_layout();
    connect(&frame_timer_, &QTimer::timeout, this, [this] { refresh(); });
    frame_timer_.start(16);  // ~60 frames per second
    refresh();
}

MainWindow::~MainWindow() {
    if (use_settings_) save_layout();
}

void MainWindow::make_panels() {
    bits_ = new BitLayoutPanel(this);
    scale_ = new ScalePanel([this](const std::string& a) { session_->set(a); }, this);
    auto* hist = new HistogramPanel([this](float x) { bits_->set_value(x); }, this);
    auto* loss = new LossPanel(this);
    panels_ = {hist, scale_, loss, bits_};
    setCentralWidget(nullptr);
    const Qt::DockWidgetArea area[] = {Qt::LeftDockWidgetArea, Qt::RightDockWidgetArea, Qt::RightDockWidgetArea,
                                       Qt::LeftDockWidgetArea};
    for (std::size_t i = 0; i < panels_.size(); ++i) {
        auto* dock = new QDockWidget(panels_[i]->title(), this);
        dock->setObjectName("dock-" + panels_[i]->id());  // the key saveState() stores the layout under
        dock->setWidget(panels_[i]);
        dock->setFeatures(QDockWidget::DockWidgetClosable | QDockWidget::DockWidgetMovable |
                          QDockWidget::DockWidgetFloatable);
        addDockWidget(area[i], dock);
    }
}

void MainWindow::size_docks() {
    // The histograms are what people come for: most of the left column.
    auto dock_of = [this](Panel* p) { return static_cast<QDockWidget*>(p->parentWidget()); };
    resizeDocks({dock_of(panels_[0]), dock_of(panels_[3])}, {64, 36}, Qt::Vertical);
    resizeDocks({dock_of(panels_[1]), dock_of(panels_[2])}, {50, 50}, Qt::Vertical);
    resizeDocks({dock_of(panels_[0]), dock_of(panels_[1])}, {55, 45}, Qt::Horizontal);
}

void MainWindow::make_toolbar() {
    QToolBar* bar = addToolBar("Run");
    bar->setObjectName("toolbar-run");
    bar->addWidget(new QLabel(" Preset ", bar));
    presets_ = new QComboBox(bar);
    for (const PresetInfo& p : list_presets()) {
        presets_->addItem(QString::fromStdString(p.name));
        presets_->setItemData(presets_->count() - 1, QString::fromStdString(p.description), Qt::ToolTipRole);
    }
    presets_->setCurrentText(QString::fromStdString(preset_));
    connect(presets_, &QComboBox::activated, this, [this](int i) { load(presets_->itemText(i).toStdString()); });
    bar->addWidget(presets_);
    bar->addSeparator();
    auto add = [&](const QString& text, const QKeySequence& key, const QString& tip, auto fn) {
        QAction* a = bar->addAction(text);
        a->setShortcut(key);
        a->setToolTip(tip + " (" + key.toString() + ")");
        connect(a, &QAction::triggered, this, fn);
        return a;
    };
    add("▶ Play", QKeySequence(Qt::Key_Space), "Train until the preset's steps", [this] { session_->play(); });
    add("⏸ Pause", QKeySequence(Qt::Key_P), "Pause at the next step boundary", [this] { session_->pause(); });
    add("Step", QKeySequence(Qt::Key_S), "One optimizer step", [this] { session_->step(1); });
    add("Step 100", QKeySequence(Qt::SHIFT | Qt::Key_S), "A hundred optimizer steps", [this] { session_->step(100); });
    add("⟲ Reset", QKeySequence(Qt::CTRL | Qt::Key_R), "Back to step 0 of the preset", [this] { session_->reset(); });
    add("Fork", QKeySequence(Qt::CTRL | Qt::Key_F), "A second run from this step, trained alongside",
        [this] { session_->fork(session_->snapshot()->step); });
}

void MainWindow::make_menus() {
    QMenu* file = menuBar()->addMenu("&File");
    QAction* open = file->addAction("&Open preset…");
    open->setShortcut(QKeySequence::Open);
    connect(open, &QAction::triggered, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, "Open preset", QString(), "Presets (*.json)");
        if (!path.isEmpty()) load(path.toStdString());
    });
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
        set_dark_theme(on);
        if (use_settings_) QSettings().setValue("theme/dark", on);
        report(on ? "Dark theme: charts follow on the next start." : "Light theme: charts follow on the next start.");
    });
}

void MainWindow::load(const std::string& preset) {
    try {
        auto next = make_session(preset);
        session_ = std::move(next);
        preset_ = preset;
        shown_.reset();
        if (use_settings_) QSettings().setValue("run/preset", QString::fromStdString(preset));
        report(QString("Loaded %1.").arg(QString::fromStdString(preset)));
    } catch (const Error& e) {
        QMessageBox::warning(this, "Preset not loaded", QString::fromStdString(e.what()));
        presets_->setCurrentText(QString::fromStdString(preset_));
    }
}

void MainWindow::report(const QString& message) { statusBar()->showMessage(message, 8000); }

void MainWindow::refresh() {
    std::shared_ptr<const SessionSnapshot> s = session_->snapshot();
    if (!s || s == shown_) return;
    shown_ = s;
    for (Panel* p : panels_) p->show_snapshot(*s);
    const RunView& run = s->main;
    const StepRecord* last = run.log.latest();
    QString text = QString("%1 · step %2 / %3 · %4")
                       .arg(QString::fromStdString(preset_))
                       .arg(s->step)
                       .arg(run.config ? run.config->steps : 0)
                       .arg(s->playing ? "training" : "paused");
    if (last) text += QString(" · loss %1").arg(static_cast<double>(last->loss), 0, 'g', 4);
    if (s->fork) text += QString(" · fork from step %1").arg(s->fork->forked_at);
    status_->setText(text);
    if (s->errors != errors_seen_) {
        errors_seen_ = s->errors;
        report(QString::fromStdString(s->last_error));
    }
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
