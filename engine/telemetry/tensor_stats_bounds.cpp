#include "engine/telemetry/tensor_stats_bounds.h"

#include <algorithm>
#include <array>
#include <cfloat>
#include <cmath>

#include "engine/numeric/scalar_cast.h"
#include "engine/telemetry/tensor_stats_exact.h"

namespace plab {

namespace {

constexpr std::uint32_t kInfBits = 0x7f800000u;

WideUint power(const WideUint& v, int exponent) {
    WideUint r(1);
    for (int i = 0; i < exponent; ++i) r = r * v;
    return r;
}

}  // namespace

FormatBoundaries format_boundaries(FormatId f) {
    const FormatParams p = format_params(f);
    // Neighbouring values of the format; each midpoint needs one bit more than
    // the format has, so it is exact in FP32 (every range format is narrower).
    const float min_subnormal = decode(p, 1u);
    const float largest_subnormal = decode(p, (1u << p.man_bits) - 1u);
    const float min_normal = decode(p, 1u << p.man_bits);
    const float max_finite = decode(p, p.max_code());
    const float below_max = decode(p, p.max_code() - 1u);
    // Above the largest finite value the spacing stays that of its binade
    // (the next code up is Inf, or NaN for E4M3).
    const float beyond_max_mid = max_finite + (max_finite - below_max) / 2;

    FormatBoundaries b;
    b.nonzero.value = min_subnormal / 2;
    b.nonzero.inclusive = round_to(f, b.nonzero.value) != 0.0f;
    b.normal.value = (largest_subnormal + min_normal) / 2;
    b.normal.inclusive = round_to(f, b.normal.value) == min_normal;
    b.overflow.value = beyond_max_mid;
    // Overflow::nan shows what the value would become without saturation.
    b.overflow.inclusive = !std::isfinite(round_to(f, beyond_max_mid, Overflow::nan));
    return b;
}

std::uint32_t magnitude_threshold(const RangeBoundary& b, double divisor) {
    const Dyadic t = to_dyadic(b.value);
    const Dyadic d = to_dyadic(divisor);
    const WideUint bound = WideUint(t.significand) * WideUint(d.significand);  // T * divisor, exactly
    const int bound_exp = t.exponent + d.exponent;
    auto in_class = [&](std::uint32_t u) {
        if (u >= kInfBits) return true;  // the "no finite float" answer
        const Dyadic x = to_dyadic(bits_float(u));
        const int sign = compare_scaled(WideUint(x.significand), x.exponent, bound, bound_exp);
        return sign > 0 || (sign == 0 && b.inclusive);
    };
    // Start at the FP32 nearest to T * divisor (within an ulp or two of the
    // answer), then step to the exact boundary.
    const double guess = static_cast<double>(b.value) * divisor;
    std::uint32_t u = guess < static_cast<double>(FLT_MAX) ? float_bits(static_cast<float>(guess)) : kInfBits;
    while (u > 0 && in_class(u - 1)) --u;
    while (!in_class(u)) ++u;
    return u;
}

detail::StatsThresholds stats_thresholds(double divisor) {
    static const auto boundaries = [] {
        std::array<FormatBoundaries, kRangeFormats.size()> all{};
        for (std::size_t i = 0; i < kRangeFormats.size(); ++i) all[i] = format_boundaries(kRangeFormats[i]);
        return all;
    }();
    detail::StatsThresholds th;
    th.below[kBelowNonZero] = 1u;
    th.below[kBelowInf] = kInfBits;
    th.below[kBelowNan] = kInfBits + 1u;
    for (std::size_t i = 0; i < kRangeFormats.size(); ++i) {
        th.below[below_index(i, RangeEdge::nonzero)] = magnitude_threshold(boundaries[i].nonzero, divisor);
        th.below[below_index(i, RangeEdge::normal)] = magnitude_threshold(boundaries[i].normal, divisor);
        th.below[below_index(i, RangeEdge::overflow)] = magnitude_threshold(boundaries[i].overflow, divisor);
    }
    return th;
}

detail::ScanPlan scan_plan(const detail::StatsThresholds* th, int views) {
    detail::ScanPlan p;
    p.views = views;
    for (int v = 0; v < views; ++v)
        for (std::uint32_t t : th[v].below) {
            const auto at = std::lower_bound(p.sorted, p.sorted + p.count, t);
            if (at != p.sorted + p.count && *at == t) continue;
            std::copy_backward(at, p.sorted + p.count, p.sorted + p.count + 1);
            *at = t;
            ++p.count;
        }
    for (int v = 0; v < views; ++v)
        for (int k = 0; k < detail::kStatsThresholds; ++k)
            p.slot[v][k] = static_cast<int>(std::lower_bound(p.sorted, p.sorted + p.count, th[v].below[k]) - p.sorted);
    return p;
}

detail::ScanPlan single_scan_plan(double divisor) {
    const detail::StatsThresholds th = stats_thresholds(divisor);
    return scan_plan(&th, 1);
}

detail::ScanPlan pair_scan_plan(double divisor) {
    const detail::StatsThresholds th[2] = {stats_thresholds(1.0), stats_thresholds(divisor)};
    return scan_plan(th, 2);
}

detail::HistogramEdges histogram_edges(double divisor) {
    constexpr int B = Log2Histogram::kBinsPerBinade;
    static_assert(B >= 1 && 53 * B <= WideUint::kBits, "divisor^B must fit WideUint");
    const Dyadic d = to_dyadic(divisor);
    // divisor^B = P * 2^(B * d.exponent); floor(B log2 divisor) = bits(P) - 1 + B * d.exponent,
    // and 2^frac = P / 2^(bits(P) - 1).
    const WideUint p = power(WideUint(d.significand), B);
    const int p_top = p.bit_length() - 1;
    detail::HistogramEdges edges;
    edges.offset = -B * Log2Histogram::kLowExponent - (p_top + B * d.exponent);
    for (int k = 0; k < B; ++k) {
        // Smallest M in [2^23, 2^24] with M^B * 2^p_top >= P * 2^(23 B + k);
        // M = 2^24 always satisfies it (2^frac < 2).
        std::uint32_t lo = 1u << 23, hi = 1u << 24;
        while (lo < hi) {
            const std::uint32_t mid = lo + (hi - lo) / 2;
            if (compare_scaled(power(WideUint(mid), B), p_top, p, 23 * B + k) >= 0)
                hi = mid;
            else
                lo = mid + 1;
        }
        edges.significand_min[k] = lo;
    }
    return edges;
}

}  // namespace plab
