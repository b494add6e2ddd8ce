// The telemetry scans compiled with -mavx512f -mavx512bw; called only after a CPUID check (tensor_stats.cpp).
#include "engine/telemetry/tensor_stats_scan.h"

namespace plab::detail {
const StatsKernels& avx512_stats_kernels() { return kStatsKernels; }
}  // namespace plab::detail
