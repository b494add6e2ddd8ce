#pragma once
// Panel 4, loss and accuracy: the mixed-precision run against its FP32 twin,
// train loss every step and test loss at each evaluation on a log axis,
// test accuracy on its own axis at the right.
#include <QLabel>
#include <QLineSeries>
#include <QLogValueAxis>
#include <QScatterSeries>
#include <vector>

#include "ui/qt/chart_kit.h"
#include "ui/qt/panel.h"

namespace plab::qt {

class LossPanel : public Panel {
public:
    explicit LossPanel(QWidget* parent = nullptr);
    void show_snapshot(const SessionSnapshot& snapshot) override;

private:
    QLineSeries* add_line(const QString& name, const QColor& colour, Qt::PenStyle style, QAbstractAxis* y);

    QChartView* view_ = nullptr;
    QValueAxis* x_ = nullptr;
    QLogValueAxis* loss_axis_ = nullptr;
    QValueAxis* acc_axis_ = nullptr;
    // In LossCurves order: train AMP, train twin, test AMP, test twin; then accuracy AMP, twin.
    std::vector<QLineSeries*> loss_;
    std::vector<QLineSeries*> acc_;
    QLineSeries* fork_ = nullptr;  // the fork's train loss, while there is a fork
    QLabel* summary_ = nullptr;
};

}  // namespace plab::qt
