// Telemetry and tracing ops on the CPU backend: the engine/numeric scans over
// a tensor's FP32 storage (which holds the values of its dtype exactly).
#include "engine/backend/cpu/cpu_backend.h"
#include "engine/numeric/tensor_stats_path.h"

namespace plab {

TensorStats CpuBackend::tensor_stats(const Tensor& x, double divisor) {
    return compute_tensor_stats(x.host(), x.size(), divisor);
}

void CpuBackend::add_to_histogram(const Tensor& x, double divisor, Log2Histogram& hist) {
    plab::add_to_histogram(x.host(), x.size(), divisor, hist);
}

std::int64_t CpuBackend::count_non_finite(const Tensor& x) { return plab::count_non_finite(x.host(), x.size()); }

float CpuBackend::finite_amax(const Tensor& x) { return plab::finite_amax(x.host(), x.size()); }

}  // namespace plab
