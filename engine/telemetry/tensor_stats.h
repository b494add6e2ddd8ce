#pragma once
// Per-tensor telemetry (docs/DESIGN.md, "Telemetry"): counts, magnitudes, and for
// each narrow format the fraction of values that would flush to zero, land
// subnormal or overflow if cast to it; and the log2-magnitude histogram.
//
// "Unscaled" views divide every value by the loss scale first; the
// statistics treat x / divisor as an exact real number (computed in FP64), so
// the unscaled view of a gradient is its true magnitude, not a second rounding.
#include <array>
#include <cstddef>
#include <cstdint>

#include "engine/numeric/format.h"

namespace plab {

// The formats whose ranges telemetry measures every tensor against.
inline constexpr std::array<FormatId, 4> kRangeFormats = {FormatId::fp16, FormatId::bf16, FormatId::e4m3,
                                                          FormatId::e5m2};

struct RangeFractions {
    float underflow = 0;  // non-zero finite values that round to zero in the format
    float subnormal = 0;  // values that round to a non-zero subnormal
    float overflow = 0;   // finite values beyond the largest finite value after rounding
                          // (to Inf for FP16/BF16/E5M2; E4M3 counts what saturate would clamp)
};

struct TensorStats {
    std::int64_t count = 0;
    std::int64_t zeros = 0;  // exact zeros (either sign)
    std::int64_t nans = 0;
    std::int64_t pos_infs = 0;
    std::int64_t neg_infs = 0;
    float amax = 0;      // over finite values
    float mean_abs = 0;  // over finite values
    float rms = 0;       // over finite values
    std::array<RangeFractions, kRangeFormats.size()> ranges{};  // fractions of `count`, in kRangeFormats order
};

// log2|x| histogram: bins of 1/4 binade. Bin i holds 2^(lo + i/4) <= |x| < 2^(lo + (i+1)/4)
// with lo = -64; values below 2^-64 go to bin 0 and values at or above 2^32 to the
// last bin (both clamp), so every non-zero finite value lands in some bin.
struct Log2Histogram {
    static constexpr int kLowExponent = -64;
    static constexpr int kHighExponent = 32;
    static constexpr int kBinsPerBinade = 4;
    static constexpr int kBins = (kHighExponent - kLowExponent) * kBinsPerBinade;  // 384

    std::array<std::uint32_t, kBins> bins{};
    std::int64_t zeros = 0;
    std::int64_t nans = 0;
    std::int64_t pos_infs = 0;
    std::int64_t neg_infs = 0;

    // Lower edge of bin i as a power of two: 2^(kLowExponent + i / 4.0).
    static double bin_low_log2(int i) { return kLowExponent + static_cast<double>(i) / kBinsPerBinade; }
};

// Statistics of x[0..n) / divisor (divisor > 0; 1 for the tensor as held).
TensorStats compute_tensor_stats(const float* x, std::size_t n, double divisor = 1.0);

// The statistics of x as held and of x / divisor (a gradient and its
// unscaled view), from one pass: the same values as two compute_tensor_stats
// calls at a little over the cost of one.
struct TensorStatsPair {
    TensorStats held;
    TensorStats divided;
};
TensorStatsPair compute_tensor_stats_pair(const float* x, std::size_t n, double divisor);
// Adds x[0..n) / divisor to `hist` (so several tensors can share one histogram).
void add_to_histogram(const float* x, std::size_t n, double divisor, Log2Histogram& hist);
// Adds x to `held` and x / divisor to `divided`: what two add_to_histogram
// calls give, from one scan when the divisor is a power of two.
void add_to_histogram_pair(const float* x, std::size_t n, double divisor, Log2Histogram& held,
                           Log2Histogram& divided);

}  // namespace plab
