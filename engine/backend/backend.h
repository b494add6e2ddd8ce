#pragma once
// The Backend: everything a training step asks of the machine it runs on,
// as four small interfaces grouped by role, each in its own header:
//   DeviceCore   (device_core.h)   memory, transfers, the one host wait, capture
//   MathOps      (math_ops.h)      GEMM, activations, losses, LayerNorm, BatchNorm, attention
//   StepOps      (step_ops.h)      accumulation, loss scale, norm and clip, updates
//   TelemetryOps (telemetry_ops.h) statistics, histograms, comparisons
// The CPU backend (backend/cpu) is the exact emulation and the reference the
// GPU backend (kernels/) is tested against; StepRecorder (step_recorder.h)
// records a step on the host. Adding an op: CONTRIBUTING.md.
#include <cstdint>
#include <string>
#include <utility>

#include "engine/backend/device_core.h"
#include "engine/backend/math_ops.h"
#include "engine/backend/step_ops.h"
#include "engine/backend/telemetry_ops.h"

namespace plab {

class Backend : public DeviceCore, public MathOps, public StepOps, public TelemetryOps {
public:
    virtual ~Backend() = default;
    Device device() const { return device_; }
    std::string name() const { return name_; }  // "CPU (exact emulation)", a GPU's name

    // Statistics of x / divisor (telemetry/tensor_stats.h) read back at once:
    // one queued request and the wait for it, so never inside a recorded step
    // (the NaN tracer's checks, the scenarios' probes).
    TensorStats tensor_stats(const Tensor& x, double divisor) {
        TensorStats stats;
        queue_telemetry({.x = &x, .divisor = divisor, .stats_divided = &stats});
        wait_for_queued();
        return stats;
    }
    // Number of NaN and +-Inf elements, the same way.
    std::int64_t count_non_finite(const Tensor& x) {
        const TensorStats s = tensor_stats(x, 1.0);
        return s.nans + s.pos_infs + s.neg_infs;
    }

protected:
    Backend(Device device, std::string name) : device_(device), name_(std::move(name)) {}

private:
    Device device_;
    std::string name_;
};

}  // namespace plab
