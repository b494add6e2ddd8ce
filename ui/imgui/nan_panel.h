#pragma once
// The first-NaN diagnosis (ui/present/nan_diagnosis): the first step whose
// gradients or loss were not finite, in words, and the remedies, each a
// button that forks the run from the last finite step with that change.
#include "ui/imgui/panel.h"
#include "ui/present/trace_asker.h"

namespace plab::imgui {

class NanPanel {
public:
    void draw(const SessionSnapshot& snapshot, const Look& look, const LiveContext& context);

private:
    TraceAsker trace_asker_;
};

}  // namespace plab::imgui
