// The telemetry scans for any CPU: the baseline instruction set (SSE2 on x86-64).
#include "engine/telemetry/tensor_stats_scan.h"

namespace plab::detail {
const StatsKernels& portable_stats_kernels() { return kStatsKernels; }
}  // namespace plab::detail
