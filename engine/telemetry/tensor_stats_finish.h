#pragma once
// The last, cheap step of every telemetry scan, wherever the scan ran (a CPU
// path or a CUDA kernel): raw counts and sums become TensorStats and
// Log2Histogram. One definition, so the backends report the same numbers.
#include <cstddef>
#include <cstdint>

#include "engine/telemetry/tensor_stats.h"
#include "engine/telemetry/tensor_stats_kernels.h"

namespace plab::detail {

// plab::Error naming telemetry.divisor unless it is finite and > 0: what
// every backend checks before a scan.
void check_divisor(double divisor);

// View v's scan (its thresholds' counts picked from `below`, the counts of
// the plan's sorted thresholds) with the view-independent parts.
StatsScan scan_view(const ScanPlan& plan, int v, const std::uint64_t* below, std::uint64_t pos_infs,
                    std::uint32_t amax_bits, double sum_abs, double sum_sq);

// The statistics of n elements divided by `divisor`, from their scan.
TensorStats stats_from_scan(const StatsScan& scan, std::size_t n, double divisor);

// Adds slot counts (kHistogramSlots: the bins, zeros, NaN, +Inf, -Inf) to hist.
void add_slot_counts(const std::uint32_t* counts, Log2Histogram& hist);

}  // namespace plab::detail
