// The telemetry scans compiled with -mavx2; called only after a CPUID check (tensor_stats.cpp).
#include "engine/telemetry/tensor_stats_scan.h"

namespace plab::detail {
const StatsKernels& avx2_stats_kernels() { return kStatsKernels; }
}  // namespace plab::detail
