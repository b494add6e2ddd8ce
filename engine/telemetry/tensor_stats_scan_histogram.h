#pragma once
// The log2-histogram scans (detail::HistogramEdges): a slot per element,
// computed a chunk at a time, then counted.
#include "engine/telemetry/histogram_slot.h"
#include "engine/telemetry/tensor_stats_scan_base.h"

namespace plab::detail {
namespace {

// histogram_slot(): histogram_slot.h, the definition the CUDA kernels share.

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
    return select_bits(a == 0, zero_slot, static_cast<std::uint32_t>(bin));
}

// Counting a slot is a store-to-load round trip on its counter, so the
// slots are counted into kHistogramWays interleaved sub-histograms, and where
// zeros are counted as slots (the plain path) they take kZeroCounters
// counters past the others in turn, four elements to each.
constexpr std::size_t kHistogramWays = 4;
constexpr std::uint32_t kZeroCounters = 4;

// A chunk's elements to count: slots[0..count), and `zeros` zeros counted apart.
struct ChunkSlots {
    std::size_t count = 0;
    std::uint32_t zeros = 0;
};

// The slots of a chunk by normal_slot(), into slots[]; false when the chunk
// holds a subnormal, an Inf or a NaN, which histogram_slot() must redo.
#if defined(__AVX512BW__)
// The bins of sixteen non-zero normal magnitudes bits(|x|): normal_slot()
// with no zero to handle.
template <int Bins>
[[gnu::always_inline]] inline __m512i normal_bins(__m512i a, const __m512i* mantissa_min, __m512i base) {
    constexpr int B = Log2Histogram::kBinsPerBinade;
    __m512i bin = _mm512_add_epi32(_mm512_slli_epi32(_mm512_srli_epi32(a, 23), 2), base);
    const __m512i mantissa = _mm512_and_si512(a, _mm512_set1_epi32(0x7fffff));
#pragma GCC unroll 8
    for (int k = 0; k < B; ++k)
        bin = _mm512_mask_add_epi32(bin, _mm512_cmpge_epu32_mask(mantissa, mantissa_min[k]), bin, _mm512_set1_epi32(1));
    return _mm512_min_epi32(_mm512_max_epi32(bin, _mm512_setzero_si512()), _mm512_set1_epi32(Bins - 1));
}

// Written with intrinsics, and only the non-zero elements get a slot, the
// zeros counted from a mask: counting a slot costs a cycle, as much as
// computing sixteen, and ReLU outputs and their gradients are half zeros. A
// block of 16 without a zero gets its slots at once; the non-zero magnitudes
// of the others are packed (five cycles a block on Zen 4) and get theirs
// sixteen at a time after. (One histogram step of the default preset takes
// little more than half the plain loop's time, docs/perf.md; the plain loop's
// masked adds also took three operations each.)
template <int Bins>
bool normal_slots(const float* x, std::size_t m, const std::uint32_t* mantissa_min, int base, std::uint32_t* slots,
                  ChunkSlots& out) {
    constexpr int B = Log2Histogram::kBinsPerBinade;
    __m512i mmin[B];
    for (int k = 0; k < B; ++k) mmin[k] = _mm512_set1_epi32(static_cast<int>(mantissa_min[k]));
    const __m512i base_v = _mm512_set1_epi32(base);
    const __m512i abs_mask = _mm512_set1_epi32(static_cast<int>(kAbsMask));
    __m512i lo = _mm512_set1_epi32(-1), hi = _mm512_setzero_si512();  // min bits(|x|) over x != 0, max bits(|x|)
    std::uint32_t packed[kChunk + 16];  // room for a whole register's store past the last one
    std::size_t i = 0, count = 0, packs = 0;
    for (; i + 16 <= m; i += 16) {
        const __m512i a = _mm512_and_si512(_mm512_loadu_si512(x + i), abs_mask);
        const __mmask16 nz = _mm512_test_epi32_mask(a, a);
        lo = _mm512_mask_min_epu32(lo, nz, lo, a);
        hi = _mm512_max_epu32(hi, a);
        if (nz == 0xffff) {
            _mm512_storeu_si512(slots + count, normal_bins<Bins>(a, mmin, base_v));
            count += 16;
        } else {
            _mm512_storeu_si512(packed + packs, _mm512_maskz_compress_epi32(nz, a));
            packs += static_cast<std::size_t>(__builtin_popcount(nz));
        }
    }
    std::uint32_t lo_s = _mm512_reduce_min_epu32(lo), hi_s = _mm512_reduce_max_epu32(hi);
    for (; i < m; ++i) {
        const std::uint32_t a = magnitude_bits(x, i);
        if (a != 0) packed[packs++] = a;
        lo_s = a != 0 && a < lo_s ? a : lo_s;
        hi_s = a > hi_s ? a : hi_s;
    }
    _mm512_storeu_si512(packed + packs, _mm512_setzero_si512());  // what the last register reads past them
    for (std::size_t j = 0; j < packs; j += 16)  // the slots past count + packs are never counted
        _mm512_storeu_si512(slots + count + j, normal_bins<Bins>(_mm512_loadu_si512(packed + j), mmin, base_v));
    out.count = count + packs;
    out.zeros = static_cast<std::uint32_t>(m - out.count);
    return lo_s >= 0x800000u && hi_s < kInfBits;
}
#else
std::uint32_t zero_counter(std::size_t i) { return static_cast<std::uint32_t>((i / kHistogramWays) % kZeroCounters); }

template <int Bins>
bool normal_slots(const float* x, std::size_t m, const std::uint32_t* mantissa_min, int base, std::uint32_t* slots,
                  ChunkSlots& out) {
    constexpr std::uint32_t kSlots = Bins + 4;
    std::uint32_t lo_less_one = 0xffffffffu, hi = 0;  // min bits(|x|) - 1 over x != 0, max bits(|x|)
    for (std::size_t i = 0; i < m; ++i) {
        const std::uint32_t a = magnitude_bits(x, i);
        slots[i] = normal_slot<Bins>(a, mantissa_min, base, kSlots + zero_counter(i));
        const std::uint32_t a_less_one = a - 1u;  // 0 wraps to the top: min() skips it
        lo_less_one = lo_less_one < a_less_one ? lo_less_one : a_less_one;
        hi = hi > a ? hi : a;
    }
    out.count = m;
    out.zeros = 0;
    return lo_less_one >= 0x7fffffu && hi < kInfBits;
}
#endif

// The slots of a chunk, by normal_slot(), which costs a fraction of
// histogram_slot(), unless the chunk holds a subnormal, an Inf or a NaN.
template <int Bins>
ChunkSlots chunk_slots(const float* x, std::size_t m, const std::uint32_t* mantissa_min, int base,
                       const HistogramEdges& edges, std::uint32_t* slots) {
    ChunkSlots out;
    if (normal_slots<Bins>(x, m, mantissa_min, base, slots, out)) return out;
    for (std::size_t i = 0; i < m; ++i) {
        std::uint32_t u;
        std::memcpy(&u, x + i, sizeof u);
        slots[i] = histogram_slot<Bins>(u, edges);
    }
    out.count = m;
    out.zeros = 0;
    return out;
}

// Slots are computed a chunk at a time (vectorised), then counted. Below
// kFewElements one sub-histogram does: clearing and merging four measured
// dearer than the round trips there.
template <int Bins>
void histogram_scan_bins(const float* x, std::size_t n, const HistogramEdges& edges, std::uint32_t* counts) {
    constexpr int B = Log2Histogram::kBinsPerBinade;
    constexpr int kSlots = Bins + 4;
    constexpr std::size_t kFewElements = 1024;
    std::uint32_t mantissa_min[B];
    for (int k = 0; k < B; ++k) mantissa_min[k] = edges.significand_min[k] - 0x800000u;
    const int base = edges.offset - 1 - B * 127;
    const std::size_t ways = n < kFewElements ? 1 : kHistogramWays;
    std::uint32_t sub[kHistogramWays][kSlots + kZeroCounters];
    std::memset(sub, 0, sizeof sub[0] * ways);
    std::uint32_t slots[kChunk + 16];  // room for a whole register's store past the last slot
    for (std::size_t start = 0; start < n; start += kChunk) {
        const std::size_t m = n - start < kChunk ? n - start : kChunk;
        const ChunkSlots c = chunk_slots<Bins>(x + start, m, mantissa_min, base, edges, slots);
        counts[Bins] += c.zeros;
        std::size_t i = 0;
        if (ways == kHistogramWays) {
            for (; i + kHistogramWays <= c.count; i += kHistogramWays) {
#pragma GCC unroll 4
                for (std::size_t w = 0; w < kHistogramWays; ++w) ++sub[w][slots[i + w]];
            }
        }
        for (; i < c.count; ++i) ++sub[0][slots[i]];
    }
    for (std::size_t w = 0; w < ways; ++w) {
        for (int s = 0; s < kSlots; ++s) counts[s] += sub[w][s];
        for (std::uint32_t z = 0; z < kZeroCounters; ++z) counts[Bins] += sub[w][kSlots + z];
    }
}

void histogram_scan(const float* x, std::size_t n, const HistogramEdges& edges, std::uint32_t* counts) {
    histogram_scan_bins<Log2Histogram::kBins>(x, n, edges, counts);
}

void histogram_wide_scan(const float* x, std::size_t n, const HistogramEdges& edges, std::uint32_t* counts) {
    histogram_scan_bins<kWideBins>(x, n, edges, counts);
}

}  // namespace
}  // namespace plab::detail
