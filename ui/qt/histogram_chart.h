#pragma once
// One log2 |x| histogram as a chart: the bars (an area under their step
// outline) over the flush-to-zero, subnormal (hatched) and overflow bands of
// the formats the view carries, each labelled at the top ("<- FP16 flushes
// to 0"), and the FP32 twin's histogram as a dashed outline over the bars. The histogram panel shows one large, or a small
// one per layer (small multiples: compact fonts, no legend, no axis titles).
#include <QAreaSeries>
#include <QChartView>
#include <QGraphicsSimpleTextItem>
#include <QLineSeries>
#include <QValueAxis>
#include <functional>
#include <vector>

#include "ui/present/histogram_view.h"
#include "ui/present/steady_axis.h"
#include "ui/qt/plot_note.h"

namespace plab::qt {

// The y range while training: the highest bar changes a lot from one
// histogram to the next, so the top is kept while the bars (with their 8%
// room) fill 60% of it or dip below that for less than about half a second of
// histograms, and moves out 10% past them when they outgrow it.
inline constexpr SteadyRule kSteadyTop{false, true, 0.1, 0.6, 30};

// The colour of a format's bands (and of its name wherever the panel shows it).
QColor band_colour(FormatId f);

class HistogramChart : public QChartView {
public:
    // The bar under the mouse (state true), or that the mouse left it (false); a click on a bar.
    using Hovered = std::function<void(const HistBar& bar, bool state)>;
    using Clicked = std::function<void(const HistBar& bar)>;

    HistogramChart(bool compact, Hovered hovered, Clicked clicked, QWidget* parent = nullptr);

    // Draws `view` over x in [x_min, x_max] (binades), y up to `y_max`, with
    // the bands of view.bands. With `live`, the top of y moves in steps (see steady_axis.h).
    void show_view(const HistogramView& view, double x_min, double x_max, double y_max, bool live = false);
    // The x range shown, in binades (for tests).
    std::pair<double, double> x_range() const { return {x_->min(), x_->max()}; }
    // Bars of the view shown (for tests: a blank chart has none).
    std::size_t bar_count() const { return shown_.bars.size(); }
    // The points of the twin's outline drawn (for tests).
    int ghost_points() const { return ghost_->count(); }
    // The band labels shown, top to bottom and left to right (for tests).
    QStringList band_labels() const;

private:
    struct Bands {
        FormatId format;
        QAreaSeries* flush = nullptr;
        QAreaSeries* subnormal = nullptr;
        QAreaSeries* overflow = nullptr;
        QGraphicsSimpleTextItem* flush_label = nullptr;  // at the top, right of the flush edge
        QGraphicsSimpleTextItem* overflow_label = nullptr;  // left of the overflow edge
    };
    const HistBar* bar_at(double x) const;
    // Puts the shown bands' labels at their edges, a line per band (after the axes moved).
    void place_band_labels();

    bool compact_;
    std::vector<Bands> bands_;
    QValueAxis* x_ = nullptr;
    QValueAxis* y_ = nullptr;
    QAreaSeries* bars_ = nullptr;
    QLineSeries* outline_ = nullptr;
    QLineSeries* ghost_ = nullptr;  // the twin's outline
    PlotNote* note_ = nullptr;  // why there are no bars, in the middle of the plot
    HistogramView shown_;
    double shown_y_max_ = 1;  // the y_max it was shown with
    int y_room_ = 0;          // the y labels the plot's height held when it was shown
    SteadyAxis top_;  // y's top while training
};

}  // namespace plab::qt
