#pragma once
// Panel 4, loss and accuracy: the mixed-precision run against its FP32 twin,
// train loss every step and test loss at each evaluation on a log axis,
// test accuracy on its own axis at the right.
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <vector>

#include "ui/present/loss_curves.h"
#include "ui/present/steady_axis.h"
#include "ui/qt/chart_kit.h"
#include "ui/qt/edge_marks.h"
#include "ui/qt/line_key.h"
#include "ui/qt/live_text.h"
#include "ui/qt/panel.h"
#include "ui/qt/series_item.h"

namespace plab::qt {

class LossPanel : public Panel {
public:
    explicit LossPanel(QWidget* parent = nullptr);
    void show_snapshot(const SessionSnapshot& snapshot) override;

private:
    ChartLine add_line(const QString& name, const QColor& colour, Qt::PenStyle style, QAbstractAxis* y);
    void show_key(bool twin, bool fork);
    void show_marks(const std::vector<LossMark>& marks);
    static void show_curves(const std::vector<ChartLine>& lines, const std::vector<Curve>& curves, bool twin,
                            double y_scale);

    QChartView* view_ = nullptr;
    QValueAxis* x_ = nullptr;
    QLogValueAxis* loss_axis_ = nullptr;
    QValueAxis* acc_axis_ = nullptr;
    // In LossCurves order: train AMP, train twin, test AMP, test twin; then accuracy AMP, twin.
    std::vector<ChartLine> loss_;
    std::vector<ChartLine> acc_;
    ChartLine fork_;  // the fork's train loss, while there is a fork
    LineKey* key_ = nullptr;
    int key_shown_ = -1;  // the twin and fork the key was made for (twin + 2 * fork); -1: none yet
    EdgeMarks* marks_ = nullptr;  // losses the log axis cannot show
    LiveText* summary_ = nullptr;
    LiveText* fork_summary_ = nullptr;  // shown while there is a fork
    // The axes while training: steps, and log10 of the loss (both ends free,
    // kept while the curves span at least 60% of it, or dip below for a while).
    SteadyAxis steps_{SteadyRule{}};
    SteadyAxis decades_{SteadyRule{true, true, 0.1, 0.6, 30}};
};

}  // namespace plab::qt
