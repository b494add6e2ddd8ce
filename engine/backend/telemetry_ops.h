#pragma once
// The telemetry ops of a backend: statistics, histograms and comparisons of
// tensors, computed while the step goes on where the backend can (a second
// CPU thread, a GPU stream) and landing by the next wait_for_queued().
#include "engine/telemetry/tensor_stats.h"
#include "engine/tensor/tensor.h"

namespace plab {

// Sums comparing a tensor with a reference of the same shape (FP64
// accumulation, index order): the twin's distance and cosine come from these.
struct TensorComparison {
    double diff_sq = 0;  // sum (a - b)^2
    double a_sq = 0;     // sum a^2
    double b_sq = 0;     // sum b^2
    double dot = 0;      // sum a * b
};

// One telemetry request on tensor x: whichever of the statistics and
// log2 histograms of x as held and of x / divisor have a target.
struct TelemetryRequest {
    const Tensor* x = nullptr;
    double divisor = 1.0;
    TensorStats* stats = nullptr;
    TensorStats* stats_divided = nullptr;
    Log2Histogram* hist = nullptr;  // added to (its counts grow)
    Log2Histogram* hist_divided = nullptr;
};

class TelemetryOps {
public:
    // Telemetry a backend may compute while the step goes on (a second CPU
    // thread, or a GPU stream): results land in the request's targets by the
    // time wait_for_queued() returns; until then x must not change and the
    // targets must stay where they are.
    virtual void queue_telemetry(const TelemetryRequest& request) = 0;
    // max |x| over finite elements (the NaN tracer's input amax).
    virtual float finite_amax(const Tensor& x) = 0;
    // a against b, element by element (shapes must match; TensorComparison's
    // sums), landing in *out by the time wait_for_queued() returns (a GPU: no
    // sync per comparison).
    virtual void queue_compare(const Tensor& a, const Tensor& b, TensorComparison* out) = 0;

protected:
    ~TelemetryOps() = default;  // owned and destroyed as a Backend
};

}  // namespace plab
