#pragma once
// The loss-scale trajectory (ui/present/scale_trajectory): log2 of the scale
// over the whole run, decimated to the plot's pixel columns, with overflow,
// backoff, growth and edit markers, the fork's trajectory dashed beside it,
// and the progress toward the next growth.
#include "ui/imgui/panel.h"

namespace plab::imgui {

class ScalePanel {
public:
    void draw(const SessionSnapshot& snapshot, const Look& look);
};

}  // namespace plab::imgui
