#pragma once
// The log2-histogram slot of one FP32 value for given edges
// (detail::HistogramEdges says how they are defined): the one definition the
// CPU scans (tensor_stats_scan.h) and the CUDA telemetry kernels share.
// Branch-free, so that it vectorises on the CPU and does not diverge on a GPU.
//
// Internal linkage, as everything tensor_stats_scan.h includes: each SIMD
// path's file compiles its own copy (see cast_kernels.h for why).
#include <cstdint>

#include "engine/common/host_device.h"
#include "engine/numeric/scalar_cast.h"
#include "engine/telemetry/tensor_stats_kernels.h"

namespace plab::detail {
namespace {

// c ? a : b through masks, which the vectoriser takes where it may leave a branch.
PLAB_HD std::uint32_t select_bits(bool c, std::uint32_t a, std::uint32_t b) {
    return b ^ ((a ^ b) & (0u - static_cast<std::uint32_t>(c)));
}

// Slots 0..Bins-1 are the bins (clamped), then zero, NaN, +Inf, -Inf.
template <int Bins>
PLAB_HD std::uint32_t histogram_slot(std::uint32_t u, const HistogramEdges& edges) {
    constexpr int B = Log2Histogram::kBinsPerBinade;
    constexpr std::uint32_t kInf = 0x7f800000u;
    const std::uint32_t a = u & 0x7fffffffu;
    // An FP32 subnormal a * 2^-149 is normalised by converting its integer
    // mantissa to float (exact below 2^24): a itself, with exponent bits
    // 127 + floor(log2 a), so its true exponent is 149 lower.
    const bool subnormal = a < 0x800000u;
    const std::uint32_t normalised = float_bits(static_cast<float>(static_cast<std::int32_t>(a & 0x7fffffu)));
    const std::uint32_t m = select_bits(subnormal, normalised, a);
    const std::uint32_t significand = (m & 0x7fffffu) | 0x800000u;
    const int exponent = static_cast<int>(m >> 23) - 127 - static_cast<int>(select_bits(subnormal, 149u, 0u));
    int above = 0;
#if defined(__CUDACC__)
#pragma unroll
#else
#pragma GCC unroll 8
#endif
    for (int k = 0; k < B; ++k) above += significand >= edges.significand_min[k] ? 1 : 0;
    int bin = B * exponent + above - 1 + edges.offset;
    bin = bin < 0 ? 0 : bin;
    bin = bin > Bins - 1 ? Bins - 1 : bin;
    std::uint32_t slot = static_cast<std::uint32_t>(bin);
    slot = select_bits(a == 0, Bins + 0u, slot);
    slot = select_bits(a > kInf, Bins + 1u, slot);
    slot = select_bits(a == kInf, select_bits(u == kInf, Bins + 2u, Bins + 3u), slot);
    return slot;
}

}  // namespace
}  // namespace plab::detail
