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

#include "engine/numeric/tensor_stats_kernels.h"

namespace plab::detail {
namespace {

constexpr std::uint32_t kAbsMask = 0x7fffffffu;
constexpr std::uint32_t kInfBits = 0x7f800000u;
constexpr std::size_t kSumLanes = 16;
// The count passes re-read one chunk from L1; uint32 counters cannot overflow in one.
constexpr std::size_t kChunk = 2048;
static_assert(kChunk % kSumLanes == 0, "a chunk holds whole blocks of lanes");
// Thresholds counted per pass: 8 accumulators and their thresholds fit the
// registers (measured: 5 per pass or all 15 in one pass are both slower).
constexpr int kPassThresholds = 8;

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
template <int Count>
void count_below_n(const float* x, std::size_t n, const std::uint32_t* th, std::uint64_t* out) {
    std::uint32_t t[Count];
    std::uint32_t c[Count] = {};
    for (int k = 0; k < Count; ++k) t[k] = th[k];
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t a = magnitude_bits(x, i);
#pragma GCC unroll 8
        for (int k = 0; k < Count; ++k) c[k] += a < t[k] ? 1u : 0u;
    }
    for (int k = 0; k < Count; ++k) out[k] += c[k];
}

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

// The span of |x| bit patterns in one chunk: what lets a scan skip the
// thresholds that every element, or none, lies below.
struct ChunkRange {
    std::uint32_t min_all = 0xffffffffu;      // min bits(|x|)
    std::uint32_t min_nonzero = 0xffffffffu;  // min bits(|x|) over x != 0
    std::uint32_t max_all = 0;                // max bits(|x|), Inf and NaN included
};

ChunkRange chunk_range(const float* x, std::size_t n) {
    std::uint32_t lo = 0xffffffffu, lo_nonzero_less_one = 0xffffffffu, hi = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const std::uint32_t a = magnitude_bits(x, i);
        const std::uint32_t a_less_one = a - 1u;  // 0 wraps to the top: min() skips it
        lo = lo < a ? lo : a;
        lo_nonzero_less_one = lo_nonzero_less_one < a_less_one ? lo_nonzero_less_one : a_less_one;
        hi = hi > a ? hi : a;
    }
    ChunkRange r;
    r.min_all = lo;
    r.min_nonzero = lo_nonzero_less_one == 0xffffffffu ? 0xffffffffu : lo_nonzero_less_one + 1u;
    r.max_all = hi;
    return r;
}

ChunkRange merged(const ChunkRange& a, const ChunkRange& b) {
    ChunkRange r;
    r.min_all = a.min_all < b.min_all ? a.min_all : b.min_all;
    r.min_nonzero = a.min_nonzero < b.min_nonzero ? a.min_nonzero : b.min_nonzero;
    r.max_all = a.max_all > b.max_all ? a.max_all : b.max_all;
    return r;
}

// One pass over n elements (a multiple of kSumLanes) for both the range and
// the sums, the sums taken as if every element were finite: no masking, and
// each lane's amax is its max. They reach `lanes` only when the range shows
// no Inf or NaN; otherwise the caller adds sum_lanes' masked sums instead.
struct LaneRangeSums {
    double sum_abs[kSumLanes];
    double sum_sq[kSumLanes];
    std::uint32_t lo[kSumLanes];
    std::uint32_t lo_nonzero_less_one[kSumLanes];
    std::uint32_t hi[kSumLanes];
};

ChunkRange sum_lanes_and_range(const float* x, std::size_t n, LaneSums& lanes) {
    LaneRangeSums acc;
    for (std::size_t j = 0; j < kSumLanes; ++j) {
        acc.sum_abs[j] = lanes.sum_abs[j];
        acc.sum_sq[j] = lanes.sum_sq[j];
        acc.lo[j] = 0xffffffffu;
        acc.lo_nonzero_less_one[j] = 0xffffffffu;
        acc.hi[j] = 0;
    }
    for (std::size_t i = 0; i < n; i += kSumLanes) {
#pragma GCC unroll 16
        for (std::size_t j = 0; j < kSumLanes; ++j) {
            const std::uint32_t a = magnitude_bits(x, i + j);
            const std::uint32_t a_less_one = a - 1u;  // 0 wraps to the top: min() skips it
            acc.lo[j] = acc.lo[j] < a ? acc.lo[j] : a;
            acc.lo_nonzero_less_one[j] =
                acc.lo_nonzero_less_one[j] < a_less_one ? acc.lo_nonzero_less_one[j] : a_less_one;
            acc.hi[j] = acc.hi[j] > a ? acc.hi[j] : a;
            float f;
            std::memcpy(&f, &a, sizeof f);
            const double v = f;
            acc.sum_abs[j] += v;
            acc.sum_sq[j] += v * v;
        }
    }
    std::uint32_t lo_all = 0xffffffffu, lo_nz = 0xffffffffu, hi_all = 0;
    for (std::size_t j = 0; j < kSumLanes; ++j) {
        lo_all = lo_all < acc.lo[j] ? lo_all : acc.lo[j];
        lo_nz = lo_nz < acc.lo_nonzero_less_one[j] ? lo_nz : acc.lo_nonzero_less_one[j];
        hi_all = hi_all > acc.hi[j] ? hi_all : acc.hi[j];
    }
    ChunkRange r;
    r.min_all = lo_all;
    r.min_nonzero = lo_nz == 0xffffffffu ? 0xffffffffu : lo_nz + 1u;
    r.max_all = hi_all;
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
// counted element by element; the others follow from the range: no element
// lies below t <= min_all, all lie below t > max_all, and below a t in
// (min_all, min_nonzero] lie exactly the zeros (the count below 1).
void count_chunk(const float* chunk, std::size_t m, const ChunkRange& r, const ScanPlan& plan, std::uint64_t* below) {
    int lo = 0;  // the first threshold above min_nonzero
    while (lo < plan.count && plan.sorted[lo] <= r.min_nonzero) ++lo;
    int hi = lo;  // the first threshold above max_all
    while (hi < plan.count && plan.sorted[hi] <= r.max_all) ++hi;
    std::uint32_t pending[ScanPlan::kMax + 1];
    std::uint64_t counted[ScanPlan::kMax + 1] = {};
    int count = 0;
    const bool zeros_unknown = r.min_all == 0 && r.max_all > 0;  // some zeros, not all
    if (zeros_unknown) pending[count++] = 1u;
    for (int u = lo; u < hi; ++u) pending[count++] = plan.sorted[u];
    for (int k = 0; k < count; k += kPassThresholds) {
        const int pass = count - k < kPassThresholds ? count - k : kPassThresholds;
        count_below(chunk, m, pending + k, pass, counted + k);
    }
    const std::uint64_t zeros = zeros_unknown ? counted[0] : (r.max_all == 0 ? m : 0);
    for (int u = 0; u < lo; ++u) below[u] += plan.sorted[u] <= r.min_all ? 0 : zeros;
    const int first_counted = zeros_unknown ? 1 : 0;
    for (int u = lo; u < hi; ++u) below[u] += counted[first_counted + u - lo];
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

// Slots are computed a chunk at a time (vectorised), then counted into four
// interleaved sub-histograms so that runs of one bin do not serialise on a
// single counter's store-to-load round trip.
template <int Bins>
void histogram_scan_bins(const float* x, std::size_t n, const HistogramEdges& edges, std::uint32_t* counts) {
    constexpr int kWays = 4;
    constexpr int kSlots = Bins + 4;
    std::uint32_t sub[kWays][kSlots] = {};
    std::uint16_t slots[kChunk];
    for (std::size_t start = 0; start < n; start += kChunk) {
        const std::size_t m = n - start < kChunk ? n - start : kChunk;
        for (std::size_t i = 0; i < m; ++i) {
            std::uint32_t u;
            std::memcpy(&u, x + start + i, sizeof u);
            slots[i] = static_cast<std::uint16_t>(histogram_slot<Bins>(u, edges));
        }
        std::size_t i = 0;
        for (; i + kWays <= m; i += kWays) {
#pragma GCC unroll 4
            for (int w = 0; w < kWays; ++w) ++sub[w][slots[i + static_cast<std::size_t>(w)]];
        }
        for (; i < m; ++i) ++sub[0][slots[i]];
    }
    for (int w = 0; w < kWays; ++w)
        for (int s = 0; s < kSlots; ++s) counts[s] += sub[w][s];
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
