#pragma once
// Run and scaler controls: play / step / reset / fork and the recipes (the
// same commands as the keys, through LiveContext::perform), and every loss
// scaler setting, each sent to the running session as a live edit when
// Enter is pressed; the settings as a PyTorch GradScaler call to copy.
#include "ui/imgui/panel.h"
#include "ui/present/scaler_fields.h"

namespace plab::imgui {

class ControlsPanel {
public:
    void draw(const SessionSnapshot& snapshot, const Look& look, const LiveContext& context);

private:
    // A number field: shows the run's value unless it is being edited.
    struct Field {
        double value = 0;
        bool editing = false;
    };
    // Disabled, with a tooltip saying why, for a kind that ignores `what`.
    void number(const char* label, double shown, Field& field, bool whole, const ScalerConfig& s,
                const LiveContext& context);
    void init_scale(const ScalerConfig& s, const LiveContext& context);

    Field init_log2_, growth_factor_, backoff_factor_, growth_interval_, hysteresis_, min_scale_, max_scale_;
};

}  // namespace plab::imgui
