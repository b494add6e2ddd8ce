#pragma once
// The mixed-precision run against its FP32 twin (ui/present/loss_curves):
// train loss of both on a log axis (min/max per pixel column), their test
// loss dashed, the fork's train loss when there is one, and the summary line
// with the accuracies.
#include "ui/imgui/panel.h"

namespace plab::imgui {

class LossPanel {
public:
    void draw(const SessionSnapshot& snapshot, const Look& look);
};

}  // namespace plab::imgui
