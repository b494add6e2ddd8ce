#pragma once
// The telemetry scans: the statistics here (the AVX-512 path's counting on
// 16-bit keys in tensor_stats_scan_keys.h), the histograms in
// tensor_stats_scan_histogram.h; what they share, and why all of it has
// internal linkage, in tensor_stats_scan_base.h.
//
// Every path gives the same bits: counts are integers, and the FP64 sums run
// in kSumLanes interleaved partial sums (element i into lane i % kSumLanes)
// that are combined in one fixed order at the end.
#include "engine/telemetry/tensor_stats_scan_base.h"
#include "engine/telemetry/tensor_stats_scan_histogram.h"
#include "engine/telemetry/tensor_stats_scan_keys.h"

namespace plab::detail {
namespace {

constexpr std::size_t kSumLanes = 16;
static_assert(kChunk % kSumLanes == 0, "a chunk holds whole blocks of lanes");

// out[k] += #{i : bits(|x_i|) < th[k]} for k < Count, one pass. The count
// is a template argument so that a pass compares only the thresholds it has.
#if defined(__AVX512BW__)
// Written with intrinsics: each threshold costs a compare into a mask per 16
// elements, two masks joined and counted off the vector units (faster, at one
// threshold and at many, than a compare and a masked add into vector counters
// or GCC's vectorisation of the plain loop in place: docs/perf.md). Chunks of
// FP16 or BF16 values with three or more thresholds in range are counted on
// 16-bit keys instead (tensor_stats_scan_keys.h).
template <int Count>
void count_below_n(const float* x, std::size_t n, const std::uint32_t* th, std::uint64_t* out) {
    __m512i t[Count];
    std::uint64_t c[Count] = {};
    for (int k = 0; k < Count; ++k) t[k] = _mm512_set1_epi32(static_cast<int>(th[k]));
    const __m512i abs_mask = _mm512_set1_epi32(static_cast<int>(kAbsMask));
    std::size_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m512i a = _mm512_and_si512(_mm512_loadu_si512(x + i), abs_mask);
        const __m512i b = _mm512_and_si512(_mm512_loadu_si512(x + i + 16), abs_mask);
#pragma GCC unroll 16
        for (int k = 0; k < Count; ++k)
            c[k] += static_cast<std::uint64_t>(__builtin_popcount(
                    _cvtmask32_u32(_mm512_kunpackw(_mm512_cmplt_epu32_mask(b, t[k]), _mm512_cmplt_epu32_mask(a, t[k])))));
    }
    for (int k = 0; k < Count; ++k) {
        for (std::size_t r = i; r < n; ++r) c[k] += magnitude_bits(x, r) < th[k] ? 1u : 0u;
        out[k] += c[k];
    }
}
#else
template <int Count>
void count_below_n(const float* x, std::size_t n, const std::uint32_t* th, std::uint64_t* out) {
    std::uint32_t t[Count];
    std::uint32_t c[Count] = {};
    for (int k = 0; k < Count; ++k) t[k] = th[k];
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t a = magnitude_bits(x, i);
#pragma GCC unroll 16
        for (int k = 0; k < Count; ++k) c[k] += (a < t[k] ? 1u : 0u);
    }
    for (int k = 0; k < Count; ++k) out[k] += c[k];
}
#endif

// The same for 1 <= count <= kPassThresholds.
void count_below(const float* x, std::size_t n, const std::uint32_t* th, int count, std::uint64_t* out) {
    with_pass_count(count, [&](auto c) { count_below_n<decltype(c)::value>(x, n, th, out); });
}

std::uint32_t count_pos_infs(const float* x, std::size_t n) {
    std::uint32_t c = 0;
    for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t u;
        std::memcpy(&u, x + i, sizeof u);
        c += u == kInfBits ? 1u : 0u;
    }
    return c;
}

// Per-lane sums of |x| and x^2 and the max of bits(|x|) over finite x.
struct LaneSums {
    double sum_abs[kSumLanes] = {};
    double sum_sq[kSumLanes] = {};
    std::uint32_t amax[kSumLanes] = {};
};

// Adds x[0..n) to the lanes, n a multiple of kSumLanes. Non-finite elements
// enter as +0. The work runs on a local copy so that the accumulators stay in
// registers instead of making a store-to-load round trip per block.
void sum_lanes(const float* x, std::size_t n, LaneSums& lanes) {
    LaneSums acc = lanes;
    for (std::size_t i = 0; i < n; i += kSumLanes) {
#pragma GCC unroll 16
        for (std::size_t j = 0; j < kSumLanes; ++j) {
            const std::uint32_t finite = finite_or_zero(magnitude_bits(x, i + j));
            float f;
            std::memcpy(&f, &finite, sizeof f);
            const double v = f;
            acc.sum_abs[j] += v;
            acc.sum_sq[j] += v * v;  // exact: a 24-bit significand squared fits FP64's 53 bits
            acc.amax[j] = acc.amax[j] > finite ? acc.amax[j] : finite;
        }
    }
    lanes = acc;
}

// 1 when a == 0, else 0, from a - 1 (which wraps to the top only for a == 0,
// as a magnitude's bits are below 2^31).
std::uint32_t is_zero_from_less_one(std::uint32_t a_less_one) { return a_less_one >> 31; }

ChunkRange chunk_range(const float* x, std::size_t n) {
    std::uint32_t lo_nonzero_less_one = 0xffffffffu, hi = 0, zeros = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t a = magnitude_bits(x, i);
        const std::uint32_t a_less_one = a - 1u;  // 0 wraps to the top: min() skips it
        lo_nonzero_less_one = lo_nonzero_less_one < a_less_one ? lo_nonzero_less_one : a_less_one;
        hi = hi > a ? hi : a;
        zeros += is_zero_from_less_one(a_less_one);
    }
    ChunkRange r;
    r.min_nonzero = lo_nonzero_less_one == 0xffffffffu ? 0xffffffffu : lo_nonzero_less_one + 1u;
    r.max_all = hi;
    r.zeros = zeros;
    return r;
}

ChunkRange merged(const ChunkRange& a, const ChunkRange& b) {
    ChunkRange r;
    r.min_nonzero = a.min_nonzero < b.min_nonzero ? a.min_nonzero : b.min_nonzero;
    r.max_all = a.max_all > b.max_all ? a.max_all : b.max_all;
    r.zeros = a.zeros + b.zeros;
    return r;
}

// One pass over n elements (a multiple of kSumLanes) for both the range and
// the sums, the sums taken as if every element were finite: no masking, and
// each lane's amax is its max. They reach `lanes` only when the range shows
// no Inf or NaN; otherwise the caller adds sum_lanes' masked sums instead.
#if defined(__AVX512BW__)
// Written with intrinsics, the sixteen lanes in two registers per sum: one
// test of |x| into a mask gives both the least non-zero value (a masked min)
// and the zero count (its population count, off the vector units), where the
// plain loop below takes four vector operations for them.
ChunkRange sum_lanes_and_range(const float* x, std::size_t n, LaneSums& lanes) {
    __m512d abs_lo = _mm512_loadu_pd(lanes.sum_abs), abs_hi = _mm512_loadu_pd(lanes.sum_abs + 8);
    __m512d sq_lo = _mm512_loadu_pd(lanes.sum_sq), sq_hi = _mm512_loadu_pd(lanes.sum_sq + 8);
    __m512i lo = _mm512_set1_epi32(-1), hi = _mm512_setzero_si512();
    const __m512i abs_mask = _mm512_set1_epi32(static_cast<int>(kAbsMask));
    const __m512i abs_mask_pd = _mm512_set1_epi64(0x7fffffffffffffff);
    std::uint32_t nonzero = 0;
    for (std::size_t i = 0; i < n; i += kSumLanes) {
        const __m512i a = _mm512_and_si512(_mm512_loadu_si512(x + i), abs_mask);
        const __mmask16 nz = _mm512_test_epi32_mask(a, a);
        lo = _mm512_mask_min_epu32(lo, nz, lo, a);
        hi = _mm512_max_epu32(hi, a);
        nonzero += static_cast<std::uint32_t>(__builtin_popcount(nz));
        // Elements 0-7 into lanes 0-7, 8-15 into 8-15, as in the plain loop;
        // the FMA rounds once, like its add, as the product is exact.
        const __m512d v_lo = _mm512_cvtps_pd(_mm512_castps512_ps256(_mm512_castsi512_ps(a)));
        const __m512d v_hi = _mm512_cvtps_pd(_mm256_loadu_ps(x + i + 8));  // signed: cheaper than extracting a's half
        abs_lo = _mm512_add_pd(abs_lo, v_lo);
        abs_hi = _mm512_add_pd(abs_hi, _mm512_castsi512_pd(_mm512_and_si512(_mm512_castpd_si512(v_hi), abs_mask_pd)));
        sq_lo = _mm512_fmadd_pd(v_lo, v_lo, sq_lo);
        sq_hi = _mm512_fmadd_pd(v_hi, v_hi, sq_hi);
    }
    ChunkRange r;
    r.min_nonzero = _mm512_reduce_min_epu32(lo);
    r.max_all = _mm512_reduce_max_epu32(hi);
    r.zeros = static_cast<std::uint32_t>(n) - nonzero;
    if (r.max_all < kInfBits) {
        _mm512_storeu_pd(lanes.sum_abs, abs_lo);
        _mm512_storeu_pd(lanes.sum_abs + 8, abs_hi);
        _mm512_storeu_pd(lanes.sum_sq, sq_lo);
        _mm512_storeu_pd(lanes.sum_sq + 8, sq_hi);
        _mm512_storeu_si512(lanes.amax, _mm512_max_epu32(_mm512_loadu_si512(lanes.amax), hi));
    }
    return r;
}
#else
struct LaneRangeSums {
    double sum_abs[kSumLanes];
    double sum_sq[kSumLanes];
    std::uint32_t lo_nonzero_less_one[kSumLanes];
    std::uint32_t hi[kSumLanes];
    std::uint32_t zeros[kSumLanes];
};

ChunkRange sum_lanes_and_range(const float* x, std::size_t n, LaneSums& lanes) {
    LaneRangeSums acc;
    for (std::size_t j = 0; j < kSumLanes; ++j) {
        acc.sum_abs[j] = lanes.sum_abs[j];
        acc.sum_sq[j] = lanes.sum_sq[j];
        acc.lo_nonzero_less_one[j] = 0xffffffffu;
        acc.hi[j] = 0;
        acc.zeros[j] = 0;
    }
    for (std::size_t i = 0; i < n; i += kSumLanes) {
#pragma GCC unroll 16
        for (std::size_t j = 0; j < kSumLanes; ++j) {
            const std::uint32_t a = magnitude_bits(x, i + j);
            const std::uint32_t a_less_one = a - 1u;  // 0 wraps to the top: min() skips it
            acc.lo_nonzero_less_one[j] =
                acc.lo_nonzero_less_one[j] < a_less_one ? acc.lo_nonzero_less_one[j] : a_less_one;
            acc.hi[j] = acc.hi[j] > a ? acc.hi[j] : a;
            acc.zeros[j] += is_zero_from_less_one(a_less_one);
            float f;
            std::memcpy(&f, &a, sizeof f);
            const double v = f;
            acc.sum_abs[j] += v;
            acc.sum_sq[j] += v * v;
        }
    }
    std::uint32_t lo_nz = 0xffffffffu, hi_all = 0, zeros = 0;
    for (std::size_t j = 0; j < kSumLanes; ++j) {
        zeros += acc.zeros[j];
        lo_nz = lo_nz < acc.lo_nonzero_less_one[j] ? lo_nz : acc.lo_nonzero_less_one[j];
        hi_all = hi_all > acc.hi[j] ? hi_all : acc.hi[j];
    }
    ChunkRange r;
    r.min_nonzero = lo_nz == 0xffffffffu ? 0xffffffffu : lo_nz + 1u;
    r.max_all = hi_all;
    r.zeros = zeros;
    if (hi_all < kInfBits) {
        for (std::size_t j = 0; j < kSumLanes; ++j) {
            lanes.sum_abs[j] = acc.sum_abs[j];
            lanes.sum_sq[j] = acc.sum_sq[j];
            lanes.amax[j] = lanes.amax[j] > acc.hi[j] ? lanes.amax[j] : acc.hi[j];
        }
    }
    return r;
}
#endif

// Adds #{i : bits(|x_i|) < t} over one chunk of m elements to below[u] for
// every planned threshold t = plan.sorted[u]. Only thresholds inside the chunk's range are
// counted element by element; the others follow from the range: all lie
// below t > max_all, and below a t <= min_nonzero lie exactly the zeros
// (none when t is 0).
void count_chunk(const float* chunk, std::size_t m, const ChunkRange& r, const ScanPlan& plan, std::uint64_t* below) {
    int lo = 0;  // the first threshold above min_nonzero
    while (lo < plan.count && plan.sorted[lo] <= r.min_nonzero) ++lo;
    int hi = lo;  // the first threshold above max_all
    while (hi < plan.count && plan.sorted[hi] <= r.max_all) ++hi;
#if defined(__AVX512BW__)
    if (!count_on_keys(chunk, m, r, plan.sorted + lo, hi - lo, below + lo))
#endif
        for (int k = lo; k < hi; k += kPassThresholds) {
            const int pass = hi - k < kPassThresholds ? hi - k : kPassThresholds;
            count_below(chunk, m, plan.sorted + k, pass, below + k);
        }
    for (int u = 0; u < lo; ++u) below[u] += plan.sorted[u] == 0 ? 0 : r.zeros;
    for (int u = hi; u < plan.count; ++u) below[u] += m;
}

// One scan of x for the plan's views (1 or 2): the sums, amax and +Inf count
// do not depend on the thresholds and are computed once.
void scan_stats(const float* x, std::size_t n, const ScanPlan& plan, StatsScan* out) {
    for (int v = 0; v < plan.views; ++v) out[v] = StatsScan{};
    std::uint64_t below[ScanPlan::kMax] = {};
    LaneSums lanes;
    std::uint64_t pos_infs = 0;
    for (std::size_t start = 0; start < n; start += kChunk) {
        const std::size_t m = n - start < kChunk ? n - start : kChunk;
        const float* chunk = x + start;
        const std::size_t whole = m - m % kSumLanes;
        ChunkRange range = sum_lanes_and_range(chunk, whole, lanes);
        if (range.max_all >= kInfBits) sum_lanes(chunk, whole, lanes);
        if (whole != m) {  // the last partial block, zero-padded: zeros add nothing
            range = merged(range, chunk_range(chunk + whole, m - whole));
            float tail[kSumLanes] = {};
            std::memcpy(tail, chunk + whole, (m - whole) * sizeof(float));
            sum_lanes(tail, kSumLanes, lanes);
        }
        count_chunk(chunk, m, range, plan, below);
        if (range.max_all >= kInfBits) pos_infs += count_pos_infs(chunk, m);
    }
    // Pairwise, in a fixed order: the same on every path.
    for (std::size_t width = kSumLanes / 2; width > 0; width /= 2) {
        for (std::size_t j = 0; j < width; ++j) {
            lanes.sum_abs[j] += lanes.sum_abs[j + width];
            lanes.sum_sq[j] += lanes.sum_sq[j + width];
            lanes.amax[j] = lanes.amax[j] > lanes.amax[j + width] ? lanes.amax[j] : lanes.amax[j + width];
        }
    }
    for (int v = 0; v < plan.views; ++v) {
        for (int k = 0; k < kStatsThresholds; ++k) out[v].below[k] = below[plan.slot[v][k]];
        out[v].pos_infs = pos_infs;
        out[v].sum_abs = lanes.sum_abs[0];
        out[v].sum_sq = lanes.sum_sq[0];
        out[v].amax_bits = lanes.amax[0];
    }
}

std::uint32_t finite_amax_bits_scan(const float* x, std::size_t n) {
    std::uint32_t m = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t a = magnitude_bits(x, i);
        const std::uint32_t finite = finite_or_zero(a);
        m = m > finite ? m : finite;
    }
    return m;
}

constexpr StatsKernels kStatsKernels = {&scan_stats, &finite_amax_bits_scan, &histogram_scan, &histogram_wide_scan};

}  // namespace
}  // namespace plab::detail
