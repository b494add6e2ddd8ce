#pragma once
// Per-layer divergence from the FP32 twin (ui/present/divergence_view) over
// the recent steps: the relative L2 distance of each layer's weights (log
// axis) and the cosine of its gradients with the twin's, one line per layer.
#include "ui/imgui/panel.h"

namespace plab::imgui {

class DivergencePanel {
public:
    void draw(const SessionSnapshot& snapshot, const Look& look);
};

}  // namespace plab::imgui
