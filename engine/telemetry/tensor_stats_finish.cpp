#include "engine/telemetry/tensor_stats_finish.h"

#include <cmath>

#include "engine/common/field_check.h"
#include "engine/numeric/scalar_cast.h"
#include "engine/telemetry/tensor_stats_bounds.h"

namespace plab::detail {

namespace {

// Most of a tensor's twelve fractions are 0 (BF16 never flushes an FP16
// value, few values overflow): those skip the division, which makes
// stats_from_scan a smaller share of telemetry_bench's pass_stats (docs/perf.md).
float fraction(std::uint64_t part, std::size_t n) {
    return part == 0 ? 0.0f : static_cast<float>(static_cast<double>(part) / static_cast<double>(n));
}

}  // namespace

void check_divisor(double divisor) {
    check_number_field("telemetry.divisor", divisor, divisor > 0 && std::isfinite(divisor), "finite and > 0");
}

StatsScan scan_view(const ScanPlan& plan, int v, const std::uint64_t* below, std::uint64_t pos_infs,
                    std::uint32_t amax_bits, double sum_abs, double sum_sq) {
    StatsScan s;
    for (int k = 0; k < kStatsThresholds; ++k) s.below[k] = below[plan.slot[v][k]];
    s.pos_infs = pos_infs;
    s.amax_bits = amax_bits;
    s.sum_abs = sum_abs;
    s.sum_sq = sum_sq;
    return s;
}

TensorStats stats_from_scan(const StatsScan& s, std::size_t n, double divisor) {
    TensorStats t;
    const std::uint64_t finite = s.below[kBelowInf];
    t.count = static_cast<std::int64_t>(n);
    t.zeros = static_cast<std::int64_t>(s.below[kBelowNonZero]);
    t.nans = static_cast<std::int64_t>(n - s.below[kBelowNan]);
    t.pos_infs = static_cast<std::int64_t>(s.pos_infs);
    t.neg_infs = static_cast<std::int64_t>(s.below[kBelowNan] - finite - s.pos_infs);
    if (finite > 0) {
        const double m = static_cast<double>(finite);
        t.amax = static_cast<float>(static_cast<double>(bits_float(s.amax_bits)) / divisor);
        t.mean_abs = static_cast<float>(s.sum_abs / m / divisor);
        t.rms = static_cast<float>(std::sqrt(s.sum_sq / m) / divisor);
    }
    for (std::size_t i = 0; i < kRangeFormats.size(); ++i) {
        const std::uint64_t nonzero = s.below[below_index(i, RangeEdge::nonzero)];
        const std::uint64_t normal = s.below[below_index(i, RangeEdge::normal)];
        const std::uint64_t overflow = s.below[below_index(i, RangeEdge::overflow)];
        t.ranges[i].underflow = fraction(nonzero - s.below[kBelowNonZero], n);
        t.ranges[i].subnormal = fraction(normal - nonzero, n);
        t.ranges[i].overflow = fraction(finite - overflow, n);
    }
    return t;
}

void add_slot_counts(const std::uint32_t* counts, Log2Histogram& hist) {
    for (int i = 0; i < Log2Histogram::kBins; ++i) hist.bins[static_cast<std::size_t>(i)] += counts[i];
    hist.zeros += counts[kSlotZero];
    hist.nans += counts[kSlotNan];
    hist.pos_infs += counts[kSlotPosInf];
    hist.neg_infs += counts[kSlotNegInf];
}

}  // namespace plab::detail
