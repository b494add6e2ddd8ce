#pragma once
// The AVX-512 path's counting on 16-bit keys (tensor_stats_scan.h's count
// passes take it where it applies); nothing on the other paths.
#include "engine/telemetry/tensor_stats_scan_base.h"

namespace plab::detail {
namespace {

#if defined(__AVX512BW__)
// Counting on 16-bit keys, 32 elements a register where a 32-bit compare
// takes 16: when every element of a chunk has its lowest s bits zero (FP16
// values have 13, BF16 16) and its non-zero magnitudes span at most 2^16
// multiples of 2^s, the key (bits(|x|) >> s) - base orders them exactly, and
// bits(|x|) < t exactly when key < ceil(t / 2^s) - base.
struct KeyBasis {
    int s = 0;               // <= 15, so that shifting left by 16 - s drops the sign bit
    std::uint32_t base = 0;  // min_nonzero >> s: the key of the least non-zero magnitude is 0
};

// The least s that fits the span of a chunk with finite values only, or
// false; build_keys() finds out whether every element has s zero bits (the
// least and the largest magnitude at least must).
bool key_basis(const ChunkRange& r, KeyBasis& b) {
    if (r.max_all >= kInfBits || r.min_nonzero > r.max_all) return false;
    for (b.s = 0; b.s <= 15; ++b.s) {
        b.base = r.min_nonzero >> b.s;
        if ((r.max_all >> b.s) - b.base <= 0xffffu) break;
    }
    if (b.s > 15) return false;
    const std::uint32_t low_bits = (1u << b.s) - 1u;
    return (r.min_nonzero & low_bits) == 0 && (r.max_all & low_bits) == 0;
}

// Rounds a key count up to whole pairs of registers; the padding keys
// (0xffff) lie below no threshold key, which is at most 0xffff.
constexpr std::size_t kKeyBlock = 64;

// keys[i] = ((bits(|x_i|) >> s) - base) mod 2^16 for i < m, padded to a
// multiple of kKeyBlock, into *padded; false when some element has a
// non-zero bit below s. Zeros get (-base) mod 2^16, which the caller
// accounts for. Bits s..s+15 of |x| are the upper half of x << (16 - s), and
// as base's own lower half is zero there, subtracting it there is exact.
bool build_keys(const float* x, std::size_t m, const KeyBasis& b, std::uint16_t* keys, std::size_t& padded) {
    const __m128i shift = _mm_cvtsi32_si128(16 - b.s);
    const __m512i upper_halves = _mm512_set_epi16(63, 61, 59, 57, 55, 53, 51, 49, 47, 45, 43, 41, 39, 37, 35, 33, 31,
                                                  29, 27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    const std::uint16_t base = static_cast<std::uint16_t>(b.base);
    const __m512i base_v = _mm512_set1_epi16(static_cast<short>(base));
    __m512i bits_or = _mm512_setzero_si512();
    std::size_t i = 0;
    for (; i + 32 <= m; i += 32) {
        const __m512i lo = _mm512_sll_epi32(_mm512_loadu_si512(x + i), shift);
        const __m512i hi = _mm512_sll_epi32(_mm512_loadu_si512(x + i + 16), shift);
        bits_or = _mm512_ternarylogic_epi32(bits_or, lo, hi, 0xfe);  // bits_or | lo | hi
        _mm512_storeu_si512(keys + i, _mm512_sub_epi16(_mm512_permutex2var_epi16(lo, upper_halves, hi), base_v));
    }
    // The bits below s are the lower halves of the shifted values.
    std::uint32_t low = static_cast<std::uint32_t>(_mm512_reduce_or_epi32(bits_or)) & 0xffffu;
    for (; i < m; ++i) {
        const std::uint32_t a = magnitude_bits(x, i);
        low |= a & ((1u << b.s) - 1u);
        keys[i] = static_cast<std::uint16_t>((a >> b.s) - base);
    }
    padded = (m + kKeyBlock - 1) / kKeyBlock * kKeyBlock;
    for (; i < padded; ++i) keys[i] = 0xffff;
    return low == 0;
}

// out[k] += #{i : keys[i] < kt[k]}, n a multiple of kKeyBlock: a compare into
// a mask per 32 keys, two masks joined and counted off the vector units
// (half the time per element and threshold of the same on 32-bit values,
// count_below_n(); docs/perf.md).
template <int Count>
void count_keys_below_n(const std::uint16_t* keys, std::size_t n, const std::uint16_t* kt, std::uint64_t* out) {
    __m512i t[Count];
    std::uint64_t c[Count] = {};
    for (int k = 0; k < Count; ++k) t[k] = _mm512_set1_epi16(static_cast<short>(kt[k]));
    for (std::size_t i = 0; i < n; i += kKeyBlock) {
        const __m512i a = _mm512_loadu_si512(keys + i);
        const __m512i b = _mm512_loadu_si512(keys + i + 32);
#pragma GCC unroll 16
        for (int k = 0; k < Count; ++k)
            c[k] += static_cast<std::uint64_t>(__builtin_popcountll(
                    _cvtmask64_u64(_mm512_kunpackd(_mm512_cmplt_epu16_mask(b, t[k]), _mm512_cmplt_epu16_mask(a, t[k])))));
    }
    for (int k = 0; k < Count; ++k) out[k] += c[k];
}

// The same for 1 <= count <= kPassThresholds.
void count_keys_below(const std::uint16_t* keys, std::size_t n, const std::uint16_t* kt, int count, std::uint64_t* out) {
    with_pass_count(count, [&](auto c) { count_keys_below_n<decltype(c)::value>(keys, n, kt, out); });
}

// Below this many thresholds inside a chunk's range the keys cost more to
// build than they save (keys against 32-bit values, timed at two thresholds
// and at three: docs/perf.md).
constexpr int kKeyMinThresholds = 3;

// below[u] += #{i : bits(|x_i|) < th[u]} for the count thresholds inside the
// chunk's range, on keys; false when the chunk has no key basis.
bool count_on_keys(const float* x, std::size_t m, const ChunkRange& r, const std::uint32_t* th, int count,
                   std::uint64_t* below) {
    KeyBasis b;
    if (count < kKeyMinThresholds || !key_basis(r, b)) return false;
    alignas(64) std::uint16_t keys[kChunk + kKeyBlock];
    std::size_t n = 0;
    if (!build_keys(x, m, b, keys, n)) return false;
    const std::uint32_t zero_key = (0u - b.base) & 0xffffu;
    for (int k = 0; k < count; k += kPassThresholds) {
        const int pass = count - k < kPassThresholds ? count - k : kPassThresholds;
        std::uint16_t kt[kPassThresholds];
        std::uint64_t c[kPassThresholds] = {};
        // ceil(t / 2^s) - base, in 1..0xffff for a t inside the range.
        for (int u = 0; u < pass; ++u)
            kt[u] = static_cast<std::uint16_t>(((th[k + u] - 1u) >> b.s) + 1u - b.base);
        count_keys_below(keys, n, kt, pass, c);
        // The zeros lie below every threshold; their key may not.
        for (int u = 0; u < pass; ++u) below[k + u] += c[u] + (zero_key < kt[u] ? 0u : r.zeros);
    }
    return true;
}
#endif

}  // namespace
}  // namespace plab::detail
