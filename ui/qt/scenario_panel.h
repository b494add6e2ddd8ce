#pragma once
// The Scenario panel: the preset's guided text (what to look at, what to
// try, what happens), and for each change its "Try" part names a button
// that runs it side by side with the preset as shipped: a fork from step 0,
// drawn beside the run in the loss and loss-scale panels.
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <functional>
#include <string>
#include <vector>

#include "ui/qt/guide_text.h"
#include "ui/qt/panel.h"

namespace plab::qt {

class ScenarioPanel : public Panel {
public:
    using Fork = std::function<void(std::int64_t at_step, const std::vector<std::string>& changes)>;
    using Start = std::function<void()>;  // the run from step 0, playing
    ScenarioPanel(Fork fork, Start start, QWidget* parent = nullptr);
    void show_snapshot(const SessionSnapshot& snapshot) override;

private:
    Fork fork_;
    Start start_;
    QLabel* title_ = nullptr;
    GuideText* guide_ = nullptr;
    QVBoxLayout* buttons_ = nullptr;
    std::vector<QPushButton*> shown_buttons_;
    QLabel* fork_state_ = nullptr;
    std::string shown_guide_;  // name + guide shown, to rebuild only when the preset changes
};

}  // namespace plab::qt
