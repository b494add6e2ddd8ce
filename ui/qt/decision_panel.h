#pragma once
// Panel 7, decision boundary: for a 2-D classification set, the class the
// mixed-precision model and its FP32 twin predict over the plane, side by
// side, and the cells where they differ, with the test points drawn over
// them. The grids come in the records (TrainerOptions::boundary_every); the
// images are rebuilt only when a new grid arrives.
#include <QImage>
#include <QLabel>
#include <QStackedWidget>
#include <memory>
#include <vector>

#include "ui/present/decision_view.h"
#include "ui/qt/panel.h"

namespace plab::qt {

class DecisionMapView;
class MapsGrid;

class DecisionPanel : public Panel {
public:
    // `boundary_every`: the TrainerOptions::boundary_every the workbench's
    // runs were made with (0 = no grids), for the "no grid yet" message.
    explicit DecisionPanel(int boundary_every, QWidget* parent = nullptr);
    void show_snapshot(const SessionSnapshot& snapshot) override;

private:
    void show_message(const QString& text);
    void show_view(const DecisionView& view);

    int boundary_every_;
    QStackedWidget* stack_ = nullptr;
    QLabel* message_ = nullptr;
    MapsGrid* maps_ = nullptr;  // places the maps and the summary
    DecisionMapView* amp_ = nullptr;
    DecisionMapView* twin_ = nullptr;
    DecisionMapView* difference_ = nullptr;
    QLabel* summary_ = nullptr;
    std::shared_ptr<const DecisionGrid> shown_;  // the grid the images were built from
};

}  // namespace plab::qt
