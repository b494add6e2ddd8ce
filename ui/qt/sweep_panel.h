#pragma once
// The sweep panel: a grid of one or two preset settings, as plab sweep's
// axes, trained on worker threads by engine/sweep from the window's preset
// and drawn as a heat map that fills in as cells finish. Hovering a cell
// shows its numbers; the best cell under the skipped-step limit is outlined,
// and its scaler settings are given as PyTorch and DeepSpeed code to copy.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTimer>
#include <functional>
#include <memory>
#include <thread>

#include "ui/present/sweep_heat_map.h"
#include "ui/qt/panel.h"

namespace plab::qt {

class HeatMapCanvas;

class SweepPanel : public Panel {
public:
    // The config a sweep starts from: the window's preset as loaded.
    using BaseConfig = std::function<RunConfig()>;
    // Trains a cell's run beside the window's run: the settings that make it
    // from the base config (cell_run_settings), for a fork from step 0.
    using OpenCell = std::function<void(const std::vector<std::string>& settings)>;
    // Where the window's runs train (make_run_backend's name), asked as a
    // sweep starts: its runs train there too, on a GPU several at once.
    using BackendChoice = std::function<std::string()>;
    SweepPanel(BaseConfig base, OpenCell open, BackendChoice backend, QWidget* parent = nullptr);
    ~SweepPanel() override;

    // The sweep trains runs of its own: the session's snapshot changes nothing here.
    void show_snapshot(const SessionSnapshot&) override {}
    // Trains the grid the controls hold (unless a sweep ran already) and waits for it.
    void settle_for_screenshot() override;

    // Starts the grid the controls describe; false, with the reason shown, when they make none.
    bool start();
    // A click on cell `cell` of the sweep shown (for tests too): its first run trains beside the window's.
    void open_cell(std::size_t cell);
    bool running() const { return worker_.joinable(); }
    // Until the sweep ends, its last results shown.
    void wait();
    const SweepHeatMap& view() const { return view_; }

private:
    struct Work;  // what the worker thread shares with the panel

    QWidget* make_axis_controls();
    QWidget* make_run_controls();
    QWidget* make_export();
    std::shared_ptr<const SweepPlan> plan_from_controls();
    bool confirmed(const SweepPlan& plan);
    void launch(std::shared_ptr<const SweepPlan> plan);
    void poll();
    void finish();
    void redraw();
    void show_error(const QString& text);

    BaseConfig base_;
    OpenCell open_;
    BackendChoice backend_;
    QComboBox* field_[2] = {};
    QLineEdit* values_[2] = {};
    QSpinBox* steps_ = nullptr;
    QLineEdit* seeds_ = nullptr;
    QComboBox* metric_ = nullptr;
    QDoubleSpinBox* max_skipped_ = nullptr;
    QPushButton* run_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* message_ = nullptr;
    HeatMapCanvas* canvas_ = nullptr;
    QLabel* best_ = nullptr;
    QPlainTextEdit* snippets_ = nullptr;
    QPushButton* copy_ = nullptr;
    QTimer poll_timer_;

    std::shared_ptr<const SweepPlan> plan_;  // the sweep shown
    std::vector<std::optional<RunMeasures>> runs_;  // its runs' measures so far, in plan order
    SweepHeatMap view_;
    std::shared_ptr<Work> work_;
    std::thread worker_;
    bool ran_ = false;  // a sweep has been started
};

}  // namespace plab::qt
