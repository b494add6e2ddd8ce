#pragma once
// Roundings for the step-by-step references of the norms' off-list
// arithmetic, from casts the lab did not write: the compiler's _Float16
// conversion for FP16, and for BF16 a search for the nearer of the two
// neighbouring BF16 values (ties to the even one).
#include <cmath>
#include <cstdint>
#include <cstring>

namespace plab::testing_support {

inline float rounded_by_compiler_fp16(float v) { return static_cast<float>(static_cast<_Float16>(v)); }

inline float rounded_to_nearest_bf16(float v) {
    if (!std::isfinite(v)) return v;
    std::uint32_t bits = 0;
    std::memcpy(&bits, &v, sizeof bits);
    const std::uint32_t toward_zero = bits & 0xffff0000u, away = toward_zero + 0x10000u;
    auto value = [](std::uint32_t b) {
        float f = 0;
        std::memcpy(&f, &b, sizeof f);
        return static_cast<double>(f);
    };
    const double d_zero = std::abs(value(toward_zero) - v), d_away = std::abs(value(away) - v);
    const bool zero_is_even = (toward_zero & 0x10000u) == 0;
    const std::uint32_t pick = d_zero < d_away || (d_zero == d_away && zero_is_even) ? toward_zero : away;
    return static_cast<float>(value(pick));
}

using Rounding = float (*)(float);

}  // namespace plab::testing_support
