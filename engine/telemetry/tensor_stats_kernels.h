#pragma once
// Internal: the per-path kernel tables of the telemetry scans (tensor_stats.cpp
// picks one at run time, like the casts in cast_kernels.h).
//
// The kernels only count, compare bit patterns and sum: every threshold is
// derived beforehand (tensor_stats_bounds.h) so that classifying an element
// is a handful of unsigned compares of |x|'s bit pattern, which vectorise.
// The SIMD files include only this header and tensor_stats_scan.h, which
// includes the other tensor_stats_scan_*.h (all of whose code has internal
// linkage; see cast_kernels.h for why).
#include <cstddef>
#include <cstdint>

#include "engine/telemetry/tensor_stats.h"  // Log2Histogram's constants

namespace plab::detail {

// Bit patterns t such that the kernel counts the elements whose |x| bits are < t.
inline constexpr int kStatsThresholds = 15;
struct StatsThresholds {
    std::uint32_t below[kStatsThresholds] = {};
};

// The thresholds of one scan's views (1 or 2), sorted and without repeats, so
// that a chunk finds the ones inside its range as one run of them. Derived
// once per divisor (scan_plan() in tensor_stats_bounds.h).
struct ScanPlan {
    static constexpr int kMax = 2 * kStatsThresholds;
    std::uint32_t sorted[kMax] = {};
    int count = 0;
    int views = 1;
    int slot[2][kStatsThresholds] = {};  // view v's threshold k is sorted[slot[v][k]]
};

// What one scan returns, before the divisor is applied.
struct StatsScan {
    std::uint64_t below[kStatsThresholds] = {};  // #{i : bits(|x_i|) < below[k]}
    std::uint64_t pos_infs = 0;
    std::uint32_t amax_bits = 0;  // max bits(|x|) over finite x (0 when none)
    double sum_abs = 0;           // sum of |x| over finite x
    double sum_sq = 0;            // sum of x^2 over finite x (exact products)
};

// The log2 histogram's edges for one divisor, B = kBinsPerBinade bins a binade.
// With |x| = M * 2^(e - 23) (M a 24-bit significand, normalised for FP32
// subnormals too), |x| / divisor falls in bin
//     B * e + #{k : M >= significand_min[k]} - 1 + offset     (then clamped),
// where offset = -B * kLowExponent - floor(B log2 divisor) and significand_min[k]
// is the smallest M with (M / 2^23)^B >= 2^(k + frac), frac = frac(B log2 divisor);
// 2^24 when there is none. Derived exactly by histogram_edges() (tensor_stats_bounds.h).
struct HistogramEdges {
    int offset = 0;
    std::uint32_t significand_min[Log2Histogram::kBinsPerBinade] = {};
};

// Histogram counting slots: the bins, then zeros, NaN, +Inf, -Inf.
inline constexpr int kSlotZero = Log2Histogram::kBins;
inline constexpr int kSlotNan = kSlotZero + 1;
inline constexpr int kSlotPosInf = kSlotZero + 2;
inline constexpr int kSlotNegInf = kSlotZero + 3;
inline constexpr int kHistogramSlots = kSlotZero + 4;

// Scans x once for the plan's views: out[v] for view v.
using StatsScanFn = void (*)(const float* x, std::size_t n, const ScanPlan& plan, StatsScan* out);
using FiniteAmaxBitsFn = std::uint32_t (*)(const float* x, std::size_t n);
// Adds each element's slot count to counts[0..kHistogramSlots).
using HistogramScanFn = void (*)(const float* x, std::size_t n, const HistogramEdges& edges, std::uint32_t* counts);

// The wide histogram: the same quarter-binade bins over every FP32 magnitude,
// 2^-149 (the smallest subnormal) up to 2^128, so that nothing clamps. Its
// counts give the histogram of x / 2^k for every k by shifting (telemetry's
// scaled and unscaled views from one scan). Slots: kWideBins bins, then zero,
// NaN, +Inf, -Inf, as above; its edges are those of divisor 1 with
// offset = kWideOffset.
inline constexpr int kWideLowExponent = -149;
inline constexpr int kWideBins = (128 - kWideLowExponent) * Log2Histogram::kBinsPerBinade;
inline constexpr int kWideOffset = -Log2Histogram::kBinsPerBinade * kWideLowExponent;
inline constexpr int kWideSlots = kWideBins + 4;

struct StatsKernels {
    StatsScanFn scan;
    FiniteAmaxBitsFn finite_amax_bits;
    HistogramScanFn histogram;       // counts[kHistogramSlots]
    HistogramScanFn histogram_wide;  // counts[kWideSlots]
};

const StatsKernels& portable_stats_kernels();
const StatsKernels& avx2_stats_kernels();
const StatsKernels& avx512_stats_kernels();

}  // namespace plab::detail
