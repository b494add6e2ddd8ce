#pragma once
// What one run of a sweep comes to, measured from its step records alone,
// so `plab run`'s records of the same settings give the same numbers.
#include <cstdint>
#include <optional>

#include "engine/amp/scaler_config.h"
#include "engine/train/step_record.h"

namespace plab {

struct RunMeasures {
    std::int64_t steps = 0;
    std::int64_t skipped = 0;
    std::int64_t floor_steps = 0;    // steps whose scale was at the scaler's floor (scaler_bounds.h)
    std::int64_t ceiling_steps = 0;  // ... at its ceiling
    // Of the weight-gradient values the steps held (compute format, scaled),
    // pooled over layers and steps, the share that was zero. A value the
    // format flushed is an exact zero there, so telemetry's `underflow` of a
    // held gradient is 0; the zero count is where a flush shows, beside the
    // zeros FP32 would give too (a ReLU unit dead on the whole batch).
    // 0 when telemetry is off.
    double grad_zero_share = 0;
    float final_loss = 0;
    std::optional<float> acc, acc_ref;        // test accuracy at the last evaluation (classification)
    std::optional<float> test_loss, test_loss_ref;  // test loss at the last evaluation
    std::optional<std::int64_t> first_growth_step;  // the first step whose update grew the scale

    // How far the run ends under its FP32 twin (acc_ref - acc), when both were measured.
    std::optional<float> acc_gap() const;
};

// Takes a run's records in step order.
class RunMeter {
public:
    explicit RunMeter(const ScalerConfig& scaler) : scaler_(scaler) {}
    void add(const StepRecord& r);
    RunMeasures result() const;

private:
    ScalerConfig scaler_;
    RunMeasures m_;
    double grad_zeros_ = 0, grad_values_ = 0;
};

}  // namespace plab
