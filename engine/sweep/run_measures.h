#pragma once
// What one run of a sweep comes to, measured from its step records alone,
// so `plab run`'s records of the same settings give the same numbers.
#include <algorithm>
#include <cstdint>
#include <optional>
#include <vector>

#include "engine/amp/scaler_config.h"
#include "engine/numeric/format.h"
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
    // Of the FP32 twin's weight-gradient values times the loss scale, on the
    // histogram steps (TwinView), pooled over layers and steps, the share
    // each layer's gradient format flushes to zero: what the run's gradients
    // truly lost, which the zeros above mix with the zeros FP32 gives too.
    // Unset without a twin or histograms; 0 where no layer's gradients are
    // held in a format telemetry measures (FP32, TF32).
    std::optional<double> twin_flush_share;
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
    // `gradient_formats`: the format each layer's weight gradient is held in
    // (the mixed side's PassFormats::layer_compute).
    RunMeter(const ScalerConfig& scaler, std::vector<FormatId> gradient_formats)
        : scaler_(scaler), gradient_formats_(std::move(gradient_formats)) {}
    void add(const StepRecord& r);
    RunMeasures result() const;

private:
    void add_twin_flushes(const TwinView& twin);
    // The measures cover the matmul layers, the first of a record's layers:
    // the embedding tables after them (telemetry_layers.h) hold their
    // gradients in the weights' format, which the formats here do not list.
    std::size_t matmul_count(std::size_t layers) const { return std::min(layers, gradient_formats_.size()); }

    ScalerConfig scaler_;
    std::vector<FormatId> gradient_formats_;
    RunMeasures m_;
    double grad_zeros_ = 0, grad_values_ = 0;
    double twin_flushed_ = 0, twin_values_ = 0;
};

}  // namespace plab
