#pragma once
// AdamW's scalars that depend on the step t (step_size = lr / (1 - beta1^t)
// and sqrt(1 - beta2^t)), tabulated on the host for an update that runs where
// t is only known as a count kept there (Backend::adamw_update_gated):
// the host computes them with adamw_scalars, as for an update it launches
// itself, so the two agree bit for bit.
//
// The table grows as steps are issued and stops growing once a row equals
// the limit the rows converge to (beta^t too small to move the FP32 values):
// every later step reads the last row. With beta2 = 0.999 that is about
// 17,000 rows.
#include <vector>

#include "engine/backend/backend.h"

namespace plab {

class AdamWTable {
public:
    // The table on `backend`, covering steps 1..max_step for these
    // hyper-parameters (step.step is not read). Grown (doubling) when
    // max_step is past its rows, unless it already reached the limit.
    // Rewritten when lr, beta1 or beta2 changed, with as many rows as before
    // (past the limit, copies of it) so that the backend's table keeps its
    // storage: a live edit moves no tensor a recorded step holds.
    const Tensor& cover(Backend& backend, const AdamWStep& step, int max_step);

    int rows() const { return static_cast<int>(host_.size() / kAdamWTableWords); }
    bool complete() const { return complete_; }  // its last row is the limit
    // The host copy, rows() x kAdamWTableWords.
    const std::vector<float>& host() const { return host_; }

private:
    bool same_settings(const AdamWStep& step) const;
    void restart(const AdamWStep& step);
    void extend(const AdamWStep& step, int rows);

    std::vector<float> host_;
    Tensor device_;
    bool uploaded_ = false;
    bool complete_ = false;
    float lr_ = 0, beta1_ = 0, beta2_ = 0;
};

}  // namespace plab
