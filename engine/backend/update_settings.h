#pragma once
// An optimizer update's hyper-parameters as the FP32 words a backend keeps
// (UpdateGate::settings), and back: the one place that knows their order.
// They live on the backend so that a live edit (lr, momentum, betas, ...)
// changes the numbers a recorded step reads at its next replay, not the step.
#include "engine/backend/update_step.h"
#include "engine/common/host_device.h"

namespace plab {

inline constexpr int kSgdSettingsWords = 3;    // lr, momentum, weight_decay
inline constexpr int kAdamWSettingsWords = 5;  // lr, beta1, beta2, eps, weight_decay

PLAB_HD void store_update_settings(const SgdStep& s, float* words) {
    words[0] = s.lr;
    words[1] = s.momentum;
    words[2] = s.weight_decay;
}
PLAB_HD SgdStep load_sgd_settings(const float* words) {
    SgdStep s;
    s.lr = words[0];
    s.momentum = words[1];
    s.weight_decay = words[2];
    return s;
}

// AdamWStep::step is not kept: where the step runs, t is the count kept there.
PLAB_HD void store_update_settings(const AdamWStep& s, float* words) {
    words[0] = s.lr;
    words[1] = s.beta1;
    words[2] = s.beta2;
    words[3] = s.eps;
    words[4] = s.weight_decay;
}
PLAB_HD AdamWStep load_adamw_settings(const float* words) {
    AdamWStep s;
    s.lr = words[0];
    s.beta1 = words[1];
    s.beta2 = words[2];
    s.eps = words[3];
    s.weight_decay = words[4];
    return s;
}

}  // namespace plab
