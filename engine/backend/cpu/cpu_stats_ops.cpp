// Telemetry and tracing ops on the CPU backend. (Stub: being written.)
#include "engine/backend/cpu/cpu_backend.h"
#include "engine/common/error.h"

namespace plab {
TensorStats CpuBackend::tensor_stats(const Tensor&, double) { throw Error("tensor_stats: not implemented yet"); }
void CpuBackend::add_to_histogram(const Tensor&, double, Log2Histogram&) {
    throw Error("add_to_histogram: not implemented yet");
}
std::int64_t CpuBackend::count_non_finite(const Tensor&) { throw Error("count_non_finite: not implemented yet"); }
float CpuBackend::finite_amax(const Tensor&) { throw Error("finite_amax: not implemented yet"); }
}  // namespace plab
