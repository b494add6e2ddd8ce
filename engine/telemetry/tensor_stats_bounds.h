#pragma once
// Where telemetry's classes begin, derived from the format constants and the
// scalar casts, and turned into FP32 bit-pattern thresholds for one divisor.
//
// y = x / divisor is an exact real number. For a class boundary T and a float
// x >= 0, y >= T exactly when x >= T * divisor, so each boundary becomes the
// smallest FP32 magnitude whose quotient lies above it; as bit patterns of
// non-negative floats order like the values, the scan then classifies an
// element with unsigned compares of bits(|x|).
#include <cstddef>
#include <cstdint>

#include "engine/telemetry/tensor_stats.h"
#include "engine/telemetry/tensor_stats_kernels.h"

namespace plab {

// A class begins at magnitudes >= value (inclusive) or > value: which one is
// the tie-to-even decision at the midpoint `value`.
struct RangeBoundary {
    float value = 0;
    bool inclusive = false;
};

// The three boundaries of one format, as magnitudes of the exact value.
struct FormatBoundaries {
    RangeBoundary nonzero;   // from here on, values do not round to zero
    RangeBoundary normal;    // from here on, values round to the smallest normal or above
    RangeBoundary overflow;  // from here on, values round beyond the largest finite value
};

// Midpoints of neighbouring values of `f` (its decode()), with the tie
// direction its round_to() takes there.
FormatBoundaries format_boundaries(FormatId f);

// The smallest FP32 magnitude bit pattern u with bits_float(u) / divisor in the
// class that begins at b; 0x7f800000 (+Inf) when no finite float is.
std::uint32_t magnitude_threshold(const RangeBoundary& b, double divisor);

// Layout of detail::StatsThresholds::below: the scan counts |x| bits below each.
inline constexpr int kBelowNonZero = 0;  // 1: exact zeros
inline constexpr int kBelowInf = 1;      // +Inf bits: the finite values
inline constexpr int kBelowNan = 2;      // one past +Inf: all but NaN
enum class RangeEdge : int { nonzero = 0, normal = 1, overflow = 2 };
constexpr int below_index(std::size_t range_slot, RangeEdge edge) {
    return 3 + 3 * static_cast<int>(range_slot) + static_cast<int>(edge);
}
static_assert(below_index(kRangeFormats.size() - 1, RangeEdge::overflow) + 1 == detail::kStatsThresholds);

detail::StatsThresholds stats_thresholds(double divisor);

// The scan plan of `views` threshold sets, sorted and merged.
detail::ScanPlan scan_plan(const detail::StatsThresholds* th, int views);
// The plans telemetry scans with: x / divisor alone, and x with x / divisor.
detail::ScanPlan single_scan_plan(double divisor);
detail::ScanPlan pair_scan_plan(double divisor);

// The histogram edges for one divisor (detail::HistogramEdges says how they are used).
detail::HistogramEdges histogram_edges(double divisor);

}  // namespace plab
