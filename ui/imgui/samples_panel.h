#pragma once
// The text a language model wrote on its sample steps (ui/present/samples_view):
// the mixed-precision model above its FP32 twin in a monospace font, cut
// into lines alike so that each character stands above its counterpart;
// from the first character where the two part, both are marked. For
// addition, each test problem with both answers, ticked when exact. A step
// chooser goes back to earlier samples; it follows the newest until another
// step is picked.
#include <cstdint>

#include "ui/imgui/panel.h"
#include "ui/present/samples_view.h"

namespace plab::imgui {

class SamplesPanel {
public:
    void draw(const SessionSnapshot& snapshot, const Look& look);

private:
    int draw_step_chooser(const SamplesView& view);

    std::int64_t picked_ = -1;  // the step the reader chose; -1 follows the newest
};

}  // namespace plab::imgui
