#pragma once
// Panel 5, FP32-twin divergence: per layer, how far the mixed-precision
// run's weights have drifted from its FP32 twin (relative L2, log axis) and
// how well their unscaled gradients agree (cosine), over the recent steps;
// as lines (one per layer) or as heat maps (rows = layers, colour = value).
#include <QChartView>
#include <QLabel>
#include <QLineSeries>
#include <QCategoryAxis>
#include <QPushButton>
#include <QStackedWidget>
#include <QValueAxis>
#include <memory>
#include <vector>

#include "ui/present/divergence_view.h"
#include "ui/qt/live_text.h"
#include "ui/qt/panel.h"
#include "ui/qt/plot_note.h"
#include "ui/qt/series_item.h"

namespace plab::qt {

class HeatChartView;

class DivergencePanel : public Panel {
public:
    explicit DivergencePanel(QWidget* parent = nullptr);
    void show_snapshot(const SessionSnapshot& snapshot) override;

    // The "lines / heat map" toggle, for tests and screenshots.
    void show_heat_map(bool heat);
    bool heat_map_shown() const;

private:
    QWidget* make_toggle();
    QWidget* make_lines_page();
    QWidget* make_heat_page();
    void redraw();
    void show_lines(const DivergenceView& v);
    void match_layer_series(std::size_t layers);
    void fit_axes();
    void plot_resized();
    int shown_columns() const;
    void align_plot_areas();

    QLabel* key_ = nullptr;  // the layers' colours, or what a heat cell shows
    QPushButton* lines_button_ = nullptr;
    QPushButton* heat_button_ = nullptr;
    QStackedWidget* pages_ = nullptr;  // lines, heat maps, message
    QChartView* dist_view_ = nullptr;
    QValueAxis* dist_x_ = nullptr;
    QCategoryAxis* dist_y_ = nullptr;  // log10 of the distance
    QChartView* cos_view_ = nullptr;
    QValueAxis* cos_x_ = nullptr;
    QValueAxis* cos_y_ = nullptr;
    std::vector<ChartLine> dist_lines_;  // one per layer
    std::vector<ChartLine> cos_lines_;
    PlotNote* dist_gaps_ = nullptr;  // the layers whose line has gaps (values not finite)
    PlotNote* cos_gaps_ = nullptr;
    HeatChartView* dist_heat_ = nullptr;
    HeatChartView* cos_heat_ = nullptr;
    QLabel* message_ = nullptr;
    LiveText* summary_ = nullptr;

    // What the last snapshot held, kept to redraw when the toggle changes.
    RunLogView log_;
    bool twin_ = true;
    std::vector<std::string> layer_names_;  // the run's (RunView::layer_names)
    static constexpr std::size_t kMostLines = 12;  // more layers open on the heat map
    bool view_chosen_ = false;              // the user clicked lines or heat map
    std::string no_twin_text_;  // why a record without a twin shows nothing ("" otherwise)
    bool have_run_ = false;
    int drawn_columns_ = 0;  // the pixel columns the shown view was made for
    // Set while redraw() runs: its new labels can move the plot area, whose
    // change must not start another redraw (two widths can alternate forever).
    bool redrawing_ = false;
    std::shared_ptr<const DivergenceView> lines_view_;  // what the line charts show; null while they are hidden
};

}  // namespace plab::qt
