#pragma once
// The first-NaN diagnosis (ui/present/nan_diagnosis): the first step whose
// gradients or loss were not finite, in words, and the remedies, each a
// button that forks the run from the last finite step with that change.
#include "ui/imgui/panel.h"

namespace plab::imgui {

class NanPanel {
public:
    void draw(const SessionSnapshot& snapshot, const Look& look, const LiveContext& context);

private:
    // The step whose trace was last asked for, and the frame it was asked at:
    // asked again a second later (60 frames) if still wanted; the session
    // ignores a repeat of the step it traced last.
    std::int64_t trace_asked_ = -1;
    int frames_since_ask_ = 0;
};

}  // namespace plab::imgui
