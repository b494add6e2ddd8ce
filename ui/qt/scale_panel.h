#pragma once
// Panel 3, loss-scale trajectory: log2 of the scale over the run with its
// overflow / backoff / growth / edit markers, and beside it the scaler's
// controls. An edit goes to the session as "scaler.<field>=<value>", applies
// at the next step and comes back as an edit marker.
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QLineSeries>
#include <QProgressBar>
#include <QPushButton>
#include <QScatterSeries>
#include <QSpinBox>
#include <array>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "ui/present/edit_gate.h"
#include "ui/present/live_keys.h"
#include "ui/present/scale_trajectory.h"
#include "ui/present/steady_axis.h"
#include "ui/qt/chart_kit.h"
#include "ui/qt/live_text.h"
#include "ui/qt/panel.h"
#include "ui/qt/scale_spin_box.h"
#include "ui/qt/series_item.h"

namespace plab::qt {

class TrackerBar;

class ScalePanel : public Panel {
public:
    using Setter = std::function<void(const std::string& assignment)>;
    ScalePanel(Setter set, QWidget* parent = nullptr);

    void show_snapshot(const SessionSnapshot& snapshot) override;

    // The controls, for tests (a QTest edits them as a person would).
    // ÷2 (0) and ×2 (1) of the live scale, for tests that press them.
    QPushButton* live_scale_button(int i) const { return live_scale_buttons_[static_cast<std::size_t>(i)]; }
    QSpinBox* growth_interval_box() const { return growth_interval_; }
    ScaleSpinBox* init_scale_box() const { return init_scale_; }
    // What the growth tracker's bar reads, e.g. "600 / 2000".
    QString tracker_text() const;
    QWidget* make_live_scale_row(QWidget* parent);
    void show_live_scale(const SessionSnapshot& snapshot);
    // Whether the dashed line is a record's what-if (its scaler replayed), not a fork.
    bool what_if_shown() const;

private:
    QWidget* make_controls();
    QString key_text(const QString& overflow, const QString& fork) const;
    void show_config(const ScalerConfig& s);
    void show_field_use(ScalerKind kind);
    void send(const std::string& field, const std::string& value);
    void hovered(ScaleEventKind kind, const QPointF& point, bool state);

    Setter set_;
    QChartView* view_ = nullptr;
    QValueAxis* x_ = nullptr;
    QValueAxis* y_ = nullptr;
    QLineSeries* line_ = nullptr;       // legend and axes of the scale line; line_item_ draws it
    QLineSeries* fork_line_ = nullptr;  // the fork's scale, while there is a fork
    SeriesItem* line_item_ = nullptr;
    SeriesItem* fork_item_ = nullptr;
    QScatterSeries* overflow_ = nullptr;
    QScatterSeries* backoff_ = nullptr;
    QScatterSeries* growth_ = nullptr;
    QScatterSeries* edit_ = nullptr;
    QScatterSeries* fork_overflow_ = nullptr;
    SeriesItem* fork_overflow_item_ = nullptr;
    SeriesItem* marker_items_[4] = {};  // draw the four marker series, in ScaleEventKind order
    QComboBox* kind_ = nullptr;
    ScaleSpinBox* init_scale_ = nullptr;
    QDoubleSpinBox* growth_factor_ = nullptr;
    QDoubleSpinBox* backoff_factor_ = nullptr;
    QSpinBox* growth_interval_ = nullptr;
    QSpinBox* hysteresis_ = nullptr;
    ScaleSpinBox* min_scale_ = nullptr;
    ScaleSpinBox* max_scale_ = nullptr;
    // A numeric control, the ScalerConfig field it edits and the value it shows, as an assignment takes it.
    struct Field {
        QAbstractSpinBox* box;
        std::string name;
        std::function<std::string()> text;
    };
    std::vector<Field> fields_;
    EditGate edits_;
    TrackerBar* tracker_ = nullptr;
    QLabel* live_scale_ = nullptr;  // the next step's scale
    std::array<QPushButton*, 2> live_scale_buttons_{};  // ÷2, ×2
    std::array<std::optional<SessionRequest>, 2> live_scale_requests_;  // what each would ask for now
    LiveText* summary_ = nullptr;
    QLabel* key_ = nullptr;
    std::vector<ScaleMarker> markers_;  // as last shown, for their tooltips
    // The config the controls show and the widget that had the focus then:
    // the controls are set again only when either changes.
    std::shared_ptr<const RunConfig> shown_config_;
    const QWidget* shown_focus_ = nullptr;
    SteadyAxis steps_{SteadyRule{}};  // x while training
};

}  // namespace plab::qt
