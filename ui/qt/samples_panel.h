#pragma once
// Panel 11, samples: the text a language model wrote on its sample steps
// (telemetry.sample_every), the mixed-precision model above its FP32 twin in
// a monospace font, so the characters line up; from the first character
// where the two part, both are marked. For addition, each test problem with
// both answers, ticked when exact. A step chooser goes back to earlier
// samples; it follows the newest until another step is picked.
#include <QComboBox>
#include <QLabel>
#include <cstdint>
#include <string>

#include "ui/present/samples_view.h"
#include "ui/qt/guide_text.h"
#include "ui/qt/panel.h"

namespace plab::qt {

class SamplesPanel : public Panel {
public:
    explicit SamplesPanel(QWidget* parent = nullptr);
    void show_snapshot(const SessionSnapshot& snapshot) override;

    QComboBox* steps() const { return steps_; }  // for tests

private:
    void fill_steps();
    void show_step(int index);

    SamplesView view_;
    std::string shown_key_;  // what the view holds, to redraw (and keep the scroll) only when it changes
    std::int64_t picked_ = -1;  // the step the reader chose; -1 follows the newest
    QLabel* title_ = nullptr;
    QWidget* chooser_ = nullptr;  // "Step:" and the steps, hidden while there are none
    QComboBox* steps_ = nullptr;
    QLabel* note_ = nullptr;
    GuideText* text_ = nullptr;
};

}  // namespace plab::qt
