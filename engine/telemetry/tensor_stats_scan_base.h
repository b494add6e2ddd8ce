#pragma once
// What the telemetry scans share: included, through tensor_stats_scan.h, by
// tensor_stats_portable.cpp, tensor_stats_avx2.cpp and tensor_stats_avx512.cpp,
// each compiled for its instruction set.
//
// Everything in these headers has internal linkage on purpose (unnamed
// namespace), as in cast_blocks.h: the linker must never hand one file's
// AVX-512 copy of a function to a caller on another path. No std:: templates
// are called either. Code written with intrinsics stands under
// __AVX512BW__ (the AVX-512 path is compiled with -mavx512f -mavx512bw)
// beside the plain loop the other paths vectorise, and gives the same bits.
#include <cstddef>
#include <cstdint>
#include <cstring>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include "engine/telemetry/tensor_stats_kernels.h"

namespace plab::detail {
namespace {

constexpr std::uint32_t kAbsMask = 0x7fffffffu;
constexpr std::uint32_t kInfBits = 0x7f800000u;
// The count passes re-read one chunk from L1; uint32 counters cannot overflow in one.
constexpr std::size_t kChunk = 2048;
// Thresholds counted per pass: their accumulators and the thresholds must fit
// the registers. 16 vector registers hold 8 (measured: 5 per pass or all 15 in
// one pass are both slower); AVX-512's 32 hold 12.
#if defined(__AVX512F__)
constexpr int kPassThresholds = 12;
#else
constexpr int kPassThresholds = 8;
#endif

// A pass's threshold count as a compile-time constant (decltype(c)::value), so
// that a pass compares only the thresholds it has.
template <int Count>
struct PassCount {
    static constexpr int value = Count;
};

// body(PassCount<count>{}) for 1 <= count <= kPassThresholds; a larger count
// takes a full pass, as the callers split their thresholds into passes.
template <int Count = 1, typename Body>
void with_pass_count(int count, Body&& body) {
    if constexpr (Count < kPassThresholds) {
        if (count != Count) return with_pass_count<Count + 1>(count, body);
    }
    body(PassCount<Count>{});
}

std::uint32_t magnitude_bits(const float* x, std::size_t i) {
    std::uint32_t u;
    std::memcpy(&u, x + i, sizeof u);
    return u & kAbsMask;
}

// a for a finite magnitude, 0 for Inf and NaN; an arithmetic mask, which
// GCC vectorises where it leaves a select as a branch.
std::uint32_t finite_or_zero(std::uint32_t a) { return a & (0u - static_cast<std::uint32_t>(a < kInfBits)); }

// The span of |x| bit patterns in one chunk and its count of zeros: what
// lets a scan skip the thresholds that every element, or none but the zeros,
// lies below. The zeros are counted in the pass that takes the sums rather
// than as one more threshold of the count passes: ReLU outputs and their
// gradients nearly always hold some.
struct ChunkRange {
    std::uint32_t min_nonzero = 0xffffffffu;  // min bits(|x|) over x != 0
    std::uint32_t max_all = 0;                // max bits(|x|), Inf and NaN included
    std::uint32_t zeros = 0;                  // #{x == 0}
};

}  // namespace
}  // namespace plab::detail
