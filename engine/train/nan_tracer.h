#pragma once
// The NaN tracer (docs/DESIGN.md, "NaN tracing and diagnosis"): checks the output of every op of
// the mixed-precision run and keeps the first one holding a NaN or Inf, with
// where it happened and a diagnosis in words.
#include <cstdint>
#include <optional>
#include <string>

#include "engine/amp/precision_config.h"
#include "engine/backend/backend.h"
#include "engine/model/op_observer.h"

namespace plab {

struct NanReport {
    std::int64_t step = 0;
    Phase phase = Phase::forward;
    std::string layer;    // "fc2", "loss", "fc1.weight"
    std::string op;       // "matmul", "weight_grad", ...
    FormatId format = FormatId::fp32;  // of the op's output
    std::int64_t nans = 0;
    std::int64_t infs = 0;
    float input_amax = 0;  // max |finite input|
    float loss_scale = 1;
    std::string diagnosis;
};

// The FP32-list op a report's op is when it is a loss value (the models'
// "cross_entropy" and "mse" in the loss phase); none for any other op.
std::optional<Fp32Op> traced_loss_op(const NanReport& r);

class NanTracer final : public OpObserver {
public:
    explicit NanTracer(Backend& backend) : backend_(backend) {}

    void begin_step(std::int64_t step) { step_ = step; }
    void after_op(const OpEvent& event) override;
    // Checks a tensor outside the model's passes (accumulated, unscaled and
    // updated parameters).
    void check(Phase phase, std::string_view layer, std::string_view op, const Tensor& output, const Tensor* input,
               float loss_scale);

    const std::optional<NanReport>& first() const { return first_; }
    void clear() { first_.reset(); }
    void restore(const std::optional<NanReport>& first) { first_ = first; }

private:
    Backend& backend_;
    std::int64_t step_ = 0;
    std::optional<NanReport> first_;
};

// The diagnosis sentence for a report (its other fields filled in).
std::string diagnose(const NanReport& report);

}  // namespace plab
