#pragma once
// Panel 6, NaN / overflow diagnosis: the first non-finite step in words, and
// buttons that rewind to the step before it on a fork, with no change or with
// one remedy, so that the run and the remedy train side by side.
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <functional>
#include <string>
#include <vector>

#include "ui/present/nan_diagnosis.h"
#include "ui/present/trace_asker.h"
#include "ui/qt/panel.h"

namespace plab::qt {

class NanPanel : public Panel {
public:
    using Fork = std::function<void(std::int64_t at_step, const std::vector<std::string>& changes)>;
    // Asks for a trace of a step (Session::trace), so the panel can name the op.
    using Trace = std::function<void(std::int64_t step)>;
    NanPanel(Fork fork, Trace trace, QWidget* parent = nullptr);
    void show_snapshot(const SessionSnapshot& snapshot) override;

private:
    void show_diagnosis(const NanDiagnosis& d, bool recorded);

    Fork fork_;
    Trace trace_;
    TraceAsker trace_asker_;
    QLabel* headline_ = nullptr;
    QLabel* detail_ = nullptr;
    QLabel* fork_state_ = nullptr;
    QVBoxLayout* buttons_ = nullptr;
    std::vector<QPushButton*> shown_buttons_;
    std::string shown_key_;  // headline + remedies shown, to rebuild the buttons only when they change
};

}  // namespace plab::qt
