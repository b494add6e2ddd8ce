#pragma once
// Panel 10, speed & memory: the current run's model under FP32, TF32,
// AMP-FP16 and AMP-BF16, the bytes each holds by tensor class at native
// widths (ui/present/recipe_comparison_view.h makes the rows), next to the
// seeds' claim; the step times need a GPU and `plab bench --compare-recipes`.
#include <QLabel>
#include <QTableWidget>
#include <memory>

#include "ui/qt/panel.h"

namespace plab::qt {

class SpeedMemoryPanel : public Panel {
public:
    explicit SpeedMemoryPanel(QWidget* parent = nullptr);

    void show_snapshot(const SessionSnapshot& snapshot) override;

    QTableWidget* table() const { return table_; }  // for tests

private:
    void show_config(const RunConfig& config);

    std::shared_ptr<const RunConfig> shown_;  // the ledger changes only with the config
    QLabel* title_ = nullptr;
    QTableWidget* table_ = nullptr;
    QLabel* notes_ = nullptr;
};

}  // namespace plab::qt
