#pragma once
// The workbench window: a toolbar of run controls, the panels as dockable,
// closable docks, and a 60 Hz timer that hands each panel the session's
// latest snapshot (the UI thread never waits for the trainer).
#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QLabel>
#include <QMainWindow>
#include <QSpinBox>
#include <QTimer>
#include <functional>
#include <memory>
#include <vector>

#include "engine/train/run_config.h"
#include "engine/train/session.h"
#include "ui/present/play_pace.h"
#include "ui/qt/panel.h"
#include "ui/records/opened_record.h"

namespace plab::qt {

class BitLayoutPanel;
class HistogramPanel;
class LiveText;
class ScalePanel;

class MainWindow : public QMainWindow {
public:
    // Loads `preset` (plab::Error on a bad one, before any window exists).
    // With use_settings, the window restores and saves its layout and last
    // preset (QSettings); screenshots and tests run without, so they are the same everywhere.
    MainWindow(const std::string& preset, bool use_settings, QWidget* parent = nullptr);
    ~MainWindow() override;

    Session& session() { return *session_; }
    // Shows a run record (plab run --out, File > Export run, plab_probe) in
    // every panel in place of the session, with a progress dialog while it
    // reads when `progress` is set; plab::Error naming the line and field of a
    // bad record, the window unchanged. A preset chosen after it trains again.
    void open_run(const std::string& file, bool progress);
    // What the panels show: the session's latest snapshot, or the record's.
    std::shared_ptr<const SessionSnapshot> snapshot() const;
    // The record shown, or nullptr while the session is.
    const OpenedRecord* record() const { return record_.get(); }
    // The record's loss scaler replayed under these scaler edits, drawn as the
    // fork (none: no what-if); plab::Error on an edit the record cannot replay.
    void set_what_if(std::vector<std::string> edits);
    // Shows the window at `wanted`, or at most the screen's available size
    // (never less than the panels' least size). Sized after the first
    // layout: before it, the docks not yet in their tabs count as stacked
    // and would stretch the window past the screen.
    void show_fitted(QSize wanted);
    // Takes the latest snapshot now and shows it in every panel (the timer does this at 60 Hz).
    void refresh();
    // A fork from step `at` with `changes` (a remedy, a scenario's "Try"),
    // trained at once beside the run: Play at the chosen pace unless playing.
    void fork_and_train(std::int64_t at, const std::vector<std::string>& changes);
    // The run from step 0 again (its fork gone), playing at the chosen pace: a scenario's Start.
    void start_from_zero();
    // Shows the latest snapshot in every panel even when it was shown already (after a resize).
    void redraw() {
        shown_.reset();
        refresh();
    }
    // The panel whose id() is `id`, or nullptr.
    Panel* panel(const QString& id) const;
    const std::vector<Panel*>& panels() const { return panels_; }
    ScalePanel* scale_panel() const { return scale_; }
    // The toolbar's preset chooser, for tests.
    QComboBox* preset_box() const { return presets_; }
    // Brings a panel's dock to the front (shown, its tab raised).
    void show_panel(Panel* panel);
    void show_guided_panels(const std::string& guide);
    void focus_histograms(const RunConfig& config);
    void lay_out_for_projector(bool on);
    std::vector<QDockWidget*> tabified_with(QDockWidget* dock);
    // Light or dark palette for the application and every panel, at once.
    void apply_theme(bool dark);

    // For benchmarks: called in place of each panel's show_snapshot (to time
    // it), and expected to call it; none by default.
    using PanelUpdate = std::function<void(Panel& panel, const SessionSnapshot& snapshot)>;
    void route_panel_updates(PanelUpdate update) { panel_update_ = std::move(update); }
    // For benchmarks that call refresh() themselves, so that every frame is theirs to measure.
    void stop_frame_timer() { frame_timer_.stop(); }

private:
    // `sweep`: the sweep panel to keep (a theme switch keeps its grid and
    // results, and a sweep training on); null to make one.
    std::vector<Panel*> make_panel_widgets(Panel* sweep = nullptr);
    void make_panels();
    void show_in(Panel* panel, const SessionSnapshot& snapshot);
    static QDockWidget* dock_of(Panel* panel);
    void jump_to(HistogramPanel* histograms, std::int64_t step);
    void size_docks();
    void make_toolbar();
    QComboBox* make_backend_box(QWidget* parent);
    void make_menus();
    void load(const std::string& preset);
    // A fresh session on `config` (the toolbar's recipe and seed, a preset); false when it is invalid.
    bool start(const RunConfig& config, const QString& what);
    void show_config_in_toolbar();
    void pace();
    std::size_t remembered_pace() const;
    double pace_rate() const;  // the chooser's steps a second (0: max)
    void export_run();
    void export_plot(Panel* panel);
    enum class Snippet { grad_scaler, deepspeed, training_arguments };
    void copy_snippet(Snippet kind);
    void report(const QString& message);
    void edit(const std::string& assignment);
    void show_record_mode();
    QString status_text(const SessionSnapshot& s) const;
    void save_layout();
    void restore_layout();

    std::unique_ptr<Session> session_;
    std::string backend_choice_ = "cpu";  // "cpu" or "cuda": where new runs train
    QComboBox* backend_ = nullptr;
    std::string preset_;
    RunConfig base_config_;  // what the session started from: the preset, with the toolbar's recipe and seed
    bool use_settings_ = true;
    std::vector<Panel*> panels_;
    BitLayoutPanel* bits_ = nullptr;
    ScalePanel* scale_ = nullptr;
    QComboBox* presets_ = nullptr;
    QComboBox* recipe_ = nullptr;
    QSpinBox* seed_ = nullptr;
    QComboBox* pace_ = nullptr;  // steps a second (pace_choices()); "max" plays flat out on the worker
    PacedPlay paced_;            // playing at a chosen pace: the frame timer queues the steps
    QElapsedTimer play_clock_;   // the pace's clock, started with the window
    QAction* play_ = nullptr;
    LiveText* status_ = nullptr;
    QTimer frame_timer_;
    std::shared_ptr<const SessionSnapshot> shown_;
    bool shown_live_ = false;  // whether the panels were last shown a moving run
    std::uint64_t errors_seen_ = 0;
    PanelUpdate panel_update_;
    std::unique_ptr<OpenedRecord> record_;  // shown in place of the session when set
    std::vector<std::string> what_if_;      // the scaler edits replayed on it
    std::shared_ptr<const SessionSnapshot> record_snapshot_;
    // What trains the session: off while a record is shown (Reset then clears the what-if).
    std::vector<QWidget*> run_widgets_;
    std::vector<QAction*> run_actions_;
    QAction* reset_ = nullptr;
};

}  // namespace plab::qt
