#pragma once
// Panel 2, gradient histograms: one layer's log2 |x| histogram of one tensor
// over the representable ranges of the chosen formats (flush-to-zero,
// subnormal, overflow bands), scaled or unscaled, with the layer's counters;
// or all layers as small multiples on one x range, scrolled when there are
// many. A filter narrows the layer chooser and the small multiples alike (a
// transformer has 30-60 tensors). Hovering a bar shows its range; clicking
// it sends its lower edge to the bit-layout panel.
#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QScrollArea>
#include <QStackedWidget>
#include <optional>
#include <functional>
#include <tuple>
#include <vector>

#include "ui/present/histogram_view.h"
#include "ui/present/steady_axis.h"
#include "ui/present/layer_chooser.h"
#include "ui/present/scenario_view.h"
#include "ui/qt/counters_table.h"
#include "ui/qt/histogram_chart.h"
#include "ui/qt/layer_combo.h"
#include "ui/qt/live_text.h"
#include "ui/qt/panel.h"

namespace plab::qt {

class HistogramPanel : public Panel {
public:
    using PickValue = std::function<void(float)>;
    explicit HistogramPanel(PickValue pick, QWidget* parent = nullptr);
    void show_snapshot(const SessionSnapshot& snapshot) override;
    // Shows the histograms of `step` (or the last histogram step before it)
    // instead of following the run, until "latest" is pressed.
    // `older`: that step's (or the latest before it) record with histograms
    // when the snapshot no longer holds one, read again from an opened record.
    void focus_step(std::int64_t step, std::shared_ptr<const StepRecord> older = nullptr);
    // The record whose histograms are shown; null while there is none.
    const StepRecord* shown_record() const { return record_.get(); }
    // Shows the tensor, the layer and the format bands a scenario's guide
    // names (each when it names one); the layer as soon as the run's layers
    // are known.
    void look_at(const HistogramFocus& focus);

private:
    struct Band {
        FormatId format;
        QCheckBox* toggle = nullptr;
    };

    QWidget* make_controls();
    HistogramChart* make_chart_widget(bool compact);
    void redraw();
    void show_nothing(const QString& why);
    void redraw_one(std::size_t layer, HistTensor tensor, const std::vector<FormatId>& formats);
    void redraw_all(HistTensor tensor, const std::vector<FormatId>& formats);
    void fill_layers();
    void match_small_charts(std::size_t charts);
    void lay_out_small_charts();
    void show_counters(const std::vector<CountersTable::Row>& rows);
    // The FP32 twin's histograms of `layer` in the shown record, null without them.
    const LayerHistograms* twin_histograms(std::size_t layer) const;
    void add_counter_rows(std::size_t layer, HistTensor tensor, const std::vector<FormatId>& formats, bool named,
                          std::vector<CountersTable::Row>& rows) const;
    std::vector<FormatId> chosen_formats() const;
    void hovered(const HistBar& bar, bool state);

    PickValue pick_;
    LayerCombo* layer_ = nullptr;
    QLineEdit* filter_ = nullptr;
    LayerChooser chooser_;  // what layer_ shows
    std::size_t want_ = 0;  // the layer (or kAllLayers) last chosen, kept while the filter hides it
    QComboBox* tensor_ = nullptr;
    QCheckBox* unscaled_ = nullptr;
    QPushButton* latest_ = nullptr;  // back to following the run
    std::shared_ptr<const StepRecord> older_;  // with focus_: a record read again for it
    std::optional<std::int64_t> focus_;  // the step asked for, while not following
    std::vector<Band> bands_;
    // The large chart's x while training: steady per layer, tensor and scaling.
    using XRangeKey = std::tuple<std::size_t, int, bool>;
    XRangeKey x_key_{static_cast<std::size_t>(-1), 0, false};
    SteadyAxis x_steady_{SteadyRule{.lo_free = true, .hi_free = true, .headroom = 0.1, .min_fill = 0.5, .patience = 8}};
    QStackedWidget* pages_ = nullptr;  // one layer large, or all layers small
    HistogramChart* large_ = nullptr;
    QScrollArea* grid_ = nullptr;  // holds a page with the small charts in a grid
    std::vector<HistogramChart*> small_;  // one per layer shown
    std::vector<QLabel*> small_titles_;
    CountersTable* counters_ = nullptr;
    QScrollArea* counters_area_ = nullptr;  // a few rows high: all layers' rows scroll
    LiveText* caption_ = nullptr;

    void pick_record();
    bool choose_asked_layer();

    // What the last snapshot held, kept to redraw when a control changes.
    std::size_t steps_held_ = 0;  // the snapshot's recent records
    int hist_every_ = 0;
    std::vector<std::shared_ptr<const StepRecord>> with_histograms_;  // of the snapshot's recent records, oldest first
    std::shared_ptr<const StepRecord> record_;  // the latest record with histograms
    std::vector<std::string> layer_names_;         // in the layer chooser
    std::vector<std::string> config_layer_names_;  // the run's (RunView::layer_names)
    std::string asked_layer_;  // by a guide (look_at), chosen whenever the run's layers are new
};

}  // namespace plab::qt
