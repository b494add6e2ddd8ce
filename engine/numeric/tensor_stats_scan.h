#pragma once
// The telemetry scans as plain loops the compiler vectorises: included by
// tensor_stats_portable.cpp, tensor_stats_avx2.cpp and tensor_stats_avx512.cpp,
// each compiled for its instruction set.
//
// Everything here has internal linkage on purpose (unnamed namespace), as in
// cast_blocks.h: the linker must never hand one file's AVX-512 copy of a
// function to a caller on another path. No std:: templates are called either.
//
// Every path gives the same bits: counts are integers, and the FP64 sums run
// in kSumLanes interleaved partial sums (element i into lane i % kSumLanes)
// that are combined in one fixed order at the end.
#include <cstddef>
#include <cstdint>
#include <cstring>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "engine/numeric/tensor_stats_kernels.h"

namespace plab::detail {
namespace {

constexpr std::uint32_t kAbsMask = 0x7fffffffu;
constexpr std::uint32_t kInfBits = 0x7f800000u;
constexpr std::size_t kSumLanes = 16;
// The count passes re-read one chunk from L1; uint32 counters cannot overflow in one.
constexpr std::size_t kChunk = 2048;
static_assert(kChunk % kSumLanes == 0, "a chunk holds whole blocks of lanes");
// Thresholds counted per pass: their accumulators and the thresholds must fit
// the registers. 16 vector registers hold 8 (measured: 5 per pass or all 15 in
// one pass are both slower); AVX-512's 32 hold 12.
#if defined(__AVX512F__)
constexpr int kPassThresholds = 12;
#else
constexpr int kPassThresholds = 8;
#endif

std::uint32_t magnitude_bits(const float* x, std::size_t i) {
    std::uint32_t u;
    std::memcpy(&u, x + i, sizeof u);
    return u & kAbsMask;
}

// a for a finite magnitude, 0 for Inf and NaN; an arithmetic mask, which
// GCC vectorises where it leaves a select as a branch.
std::uint32_t finite_or_zero(std::uint32_t a) { return a & (0u - static_cast<std::uint32_t>(a < kInfBits)); }

// out[k] += #{i : bits(|x_i|) < th[k]} for k < Count, one pass. The count
// is a template argument so that a pass compares only the thresholds it has.
#if defined(__AVX512F__)
// Written with intrinsics: each threshold costs a compare into a mask
// register and a masked subtract of -1 (two instructions), where GCC's own
// vectorisation of the plain loop took three (measured 5% faster overall).
template <int Count>
void count_below_n(const float* x, std::size_t n, const std::uint32_t* th, std::uint64_t* out) {
    __m512i t[Count];
    __m512i c[Count];
    for (int k = 0; k < Count; ++k) {
        t[k] = _mm512_set1_epi32(static_cast<int>(th[k]));
        c[k] = _mm512_setzero_si512();
    }
    const __m512i abs_mask = _mm512_set1_epi32(static_cast<int>(kAbsMask));
    const __m512i minus_one = _mm512_set1_epi32(-1);
    std::size_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512i a = _mm512_and_si512(_mm512_loadu_si512(x + i), abs_mask);
#pragma GCC unroll 16
        for (int k = 0; k < Count; ++k)
            c[k] = _mm512_mask_sub_epi32(c[k], _mm512_cmplt_epu32_mask(a, t[k]), c[k], minus_one);
    }
    for (int k = 0; k < Count; ++k) {
        std::uint32_t lanes[16];
        _mm512_storeu_si512(lanes, c[k]);
        std::uint32_t total = 0;
        for (int j = 0; j < 16; ++j) total += lanes[j];
        for (std::size_t r = i; r < n; ++r) total += magnitude_bits(x, r) < th[k] ? 1u : 0u;
        out[k] += total;
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
    switch (count) {
        case 1: count_below_n<1>(x, n, th, out); break;
        case 2: count_below_n<2>(x, n, th, out); break;
        case 3: count_below_n<3>(x, n, th, out); break;
        case 4: count_below_n<4>(x, n, th, out); break;
        case 5: count_below_n<5>(x, n, th, out); break;
        case 6: count_below_n<6>(x, n, th, out); break;
        case 7: count_below_n<7>(x, n, th, out); break;
#if defined(__AVX512F__)
        case 8: count_below_n<8>(x, n, th, out); break;
        case 9: count_below_n<9>(x, n, th, out); break;
        case 10: count_below_n<10>(x, n, th, out); break;
        case 11: count_below_n<11>(x, n, th, out); break;
#endif
        default: count_below_n<kPassThresholds>(x, n, th, out); break;
    }
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

// The span of |x| bit patterns in one chunk and its count of zeros: what
// lets a scan skip the thresholds that every element, or none but the zeros,
// lies below. The zeros are counted here, in a pass that has spare issue
// slots, rather than as one more threshold of the count passes: ReLU outputs
// and their gradients nearly always hold some.
struct ChunkRange {
    std::uint32_t min_nonzero = 0xffffffffu;  // min bits(|x|) over x != 0
    std::uint32_t max_all = 0;                // max bits(|x|), Inf and NaN included
    std::uint32_t zeros = 0;                  // #{x == 0}
};

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

std::uint64_t count_non_finite_scan(const float* x, std::size_t n) {
    std::uint64_t total = 0;
    for (std::size_t start = 0; start < n; start += kChunk) {
        const std::size_t m = n - start < kChunk ? n - start : kChunk;
        std::uint32_t c = 0;
        for (std::size_t i = 0; i < m; ++i) c += magnitude_bits(x + start, i) >= kInfBits ? 1u : 0u;
        total += c;
    }
    return total;
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

// c ? a : b through masks, which the vectoriser takes where it may leave a branch.
std::uint32_t select(bool c, std::uint32_t a, std::uint32_t b) {
    return b ^ ((a ^ b) & (0u - static_cast<std::uint32_t>(c)));
}

// The histogram slot of one element (detail::HistogramEdges), branch-free:
// bins 0..Bins-1 (clamped), then zero, NaN, +Inf, -Inf.
template <int Bins>
std::uint32_t histogram_slot(std::uint32_t u, const HistogramEdges& edges) {
    constexpr int B = Log2Histogram::kBinsPerBinade;
    const std::uint32_t a = u & kAbsMask;
    // An FP32 subnormal a * 2^-149 is normalised by converting its integer
    // mantissa to float (exact below 2^24): a itself, with exponent bits
    // 127 + floor(log2 a), so its true exponent is 149 lower.
    const bool subnormal = a < 0x800000u;
    const float as_int = static_cast<float>(static_cast<std::int32_t>(a & 0x7fffffu));
    std::uint32_t normalised;
    std::memcpy(&normalised, &as_int, sizeof normalised);
    const std::uint32_t m = select(subnormal, normalised, a);
    const std::uint32_t significand = (m & 0x7fffffu) | 0x800000u;
    const int exponent = static_cast<int>(m >> 23) - 127 - static_cast<int>(select(subnormal, 149u, 0u));
    int above = 0;
#pragma GCC unroll 8
    for (int k = 0; k < B; ++k) above += significand >= edges.significand_min[k] ? 1 : 0;
    int bin = B * exponent + above - 1 + edges.offset;
    bin = bin < 0 ? 0 : bin;
    bin = bin > Bins - 1 ? Bins - 1 : bin;
    std::uint32_t slot = static_cast<std::uint32_t>(bin);
    slot = select(a == 0, Bins + 0u, slot);
    slot = select(a > kInfBits, Bins + 1u, slot);
    slot = select(a == kInfBits, select(u == kInfBits, Bins + 2u, Bins + 3u), slot);
    return slot;
}

// The slot of a zero or a normal finite |x| bit pattern a: what
// histogram_slot() gives there, without its handling of subnormals and
// non-finite values. mantissa_min[k] = significand_min[k] - 2^23, and
// base = offset - 1 - B * 127 (the exponent bias folded in).
template <int Bins>
std::uint32_t normal_slot(std::uint32_t a, const std::uint32_t* mantissa_min, int base, std::uint32_t zero_slot) {
    constexpr int B = Log2Histogram::kBinsPerBinade;
    const std::uint32_t mantissa = a & 0x7fffffu;
    int above = 0;
#pragma GCC unroll 8
    for (int k = 0; k < B; ++k) above += mantissa >= mantissa_min[k] ? 1 : 0;
    int bin = B * static_cast<int>(a >> 23) + above + base;
    bin = bin < 0 ? 0 : bin;
    bin = bin > Bins - 1 ? Bins - 1 : bin;
    return select(a == 0, zero_slot, static_cast<std::uint32_t>(bin));
}

// Slots are computed a chunk at a time (vectorised), then counted into four
// interleaved sub-histograms so that runs of one bin do not serialise on a
// single counter's store-to-load round trip; zeros (half of a ReLU output)
// likewise take kZeroCounters counters past the other slots in turn. Below
// kFewElements one sub-histogram does: clearing and merging four measured
// dearer than the round trips there. A chunk takes normal_slot(), which costs
// a fraction of histogram_slot(), and is redone with the latter only when its
// range shows a subnormal, an Inf or a NaN.
template <int Bins>
void histogram_scan_bins(const float* x, std::size_t n, const HistogramEdges& edges, std::uint32_t* counts) {
    constexpr int B = Log2Histogram::kBinsPerBinade;
    constexpr int kWays = 4;
    constexpr int kSlots = Bins + 4;
    constexpr std::size_t kZeroCounters = 4;
    constexpr std::size_t kFewElements = 1024;
    std::uint32_t mantissa_min[B];
    for (int k = 0; k < B; ++k) mantissa_min[k] = edges.significand_min[k] - 0x800000u;
    const int base = edges.offset - 1 - B * 127;
    const int ways = n < kFewElements ? 1 : kWays;
    std::uint32_t sub[kWays][kSlots + kZeroCounters];
    std::memset(sub, 0, sizeof sub[0] * static_cast<std::size_t>(ways));
    std::uint32_t slots[kChunk];
    for (std::size_t start = 0; start < n; start += kChunk) {
        const std::size_t m = n - start < kChunk ? n - start : kChunk;
        const float* chunk = x + start;
        std::uint32_t lo_less_one = 0xffffffffu, hi = 0;  // min bits(|x|) - 1 over x != 0, max bits(|x|)
        for (std::size_t i = 0; i < m; ++i) {
            const std::uint32_t a = magnitude_bits(chunk, i);
            const std::uint32_t zero_slot = kSlots + static_cast<std::uint32_t>((i / kWays) % kZeroCounters);
            slots[i] = normal_slot<Bins>(a, mantissa_min, base, zero_slot);
            const std::uint32_t a_less_one = a - 1u;  // 0 wraps to the top: min() skips it
            lo_less_one = lo_less_one < a_less_one ? lo_less_one : a_less_one;
            hi = hi > a ? hi : a;
        }
        if (lo_less_one < 0x7fffffu || hi >= kInfBits) {
            for (std::size_t i = 0; i < m; ++i) {
                std::uint32_t u;
                std::memcpy(&u, chunk + i, sizeof u);
                slots[i] = histogram_slot<Bins>(u, edges);
            }
        }
        std::size_t i = 0;
        if (ways == kWays) {
            for (; i + kWays <= m; i += kWays) {
#pragma GCC unroll 4
                for (int w = 0; w < kWays; ++w) ++sub[w][slots[i + static_cast<std::size_t>(w)]];
            }
        }
        for (; i < m; ++i) ++sub[0][slots[i]];
    }
    for (int w = 0; w < ways; ++w) {
        for (int s = 0; s < kSlots; ++s) counts[s] += sub[w][s];
        for (std::size_t z = 0; z < kZeroCounters; ++z) counts[Bins] += sub[w][kSlots + z];
    }
}

void histogram_scan(const float* x, std::size_t n, const HistogramEdges& edges, std::uint32_t* counts) {
    histogram_scan_bins<Log2Histogram::kBins>(x, n, edges, counts);
}

void histogram_wide_scan(const float* x, std::size_t n, const HistogramEdges& edges, std::uint32_t* counts) {
    histogram_scan_bins<kWideBins>(x, n, edges, counts);
}

constexpr StatsKernels kStatsKernels = {&scan_stats, &count_non_finite_scan, &finite_amax_bits_scan, &histogram_scan,
                                        &histogram_wide_scan};

}  // namespace
}  // namespace plab::detail
