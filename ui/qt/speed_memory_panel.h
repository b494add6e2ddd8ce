#pragma once
// Panel 10, speed & memory: what PyTorch holds for the current run's model
// under every recipe, by tensor class and format, and the lab's own buffers
// under FP32, TF32 and AMP next to the seeds' claim (ui/present/
// speed_memory_view.h makes both); the step times need a GPU and
// `plab bench --compare-recipes`.
#include <QLabel>
#include <QTableWidget>
#include <memory>

#include "ui/qt/panel.h"

namespace plab::qt {

class SpeedMemoryPanel : public Panel {
public:
    explicit SpeedMemoryPanel(QWidget* parent = nullptr);

    void show_snapshot(const SessionSnapshot& snapshot) override;

    // For tests: the framework's table, and the lab's (empty for a model it does not count).
    QTableWidget* framework_table() const { return framework_.table; }
    QTableWidget* lab_table() const { return lab_.table; }
    QString lab_text() const { return lab_.title->text() + "\n" + lab_.notes->text(); }

private:
    struct Section {
        QLabel* title = nullptr;
        QTableWidget* table = nullptr;
        QLabel* notes = nullptr;
    };
    Section add_section(QLayout* layout, QWidget* host);
    void show_config(const RunConfig& config);
    void clear(Section& s, const QString& title);

    std::shared_ptr<const RunConfig> shown_;  // the ledgers change only with the config
    Section framework_, lab_;
};

}  // namespace plab::qt
