#pragma once
// exp and log of an FP32 value with the same bits on every machine, host and GPU.
//
// glibc's expf and CUDA's expf each round their own way (CUDA's is within 2
// ULPs), so a softmax gave probabilities a few ULPs apart on the two backends,
// and through the gradient the two runs drifted apart. These compute in
// double with basic operations only (+ - * /, exact by IEEE 754 on both, no
// fused multiply-add: the engine is compiled with contraction off and the
// kernels with --fmad=false) in one fixed order, then round once to FP32.
// The double result is within about 1e-16 relative of the true value, so the
// FP32 result is the correctly rounded one except where the true value lies
// within that distance of a rounding boundary (about one input in 10^8), and
// it is the same on every machine always.
#include <cstdint>
#include <cstring>

#include "engine/common/host_device.h"
#include "engine/numeric/scalar_cast.h"

namespace plab {

namespace portable_math {

PLAB_HD double bits_double(std::uint64_t u) {
#if defined(__CUDA_ARCH__)
    return __longlong_as_double(static_cast<long long>(u));
#else
    double d;
    std::memcpy(&d, &u, sizeof d);
    return d;
#endif
}

PLAB_HD std::uint64_t double_bits(double d) {
#if defined(__CUDA_ARCH__)
    return static_cast<std::uint64_t>(__double_as_longlong(d));
#else
    std::uint64_t u;
    std::memcpy(&u, &d, sizeof u);
    return u;
#endif
}

PLAB_HD float infinity() { return bits_float(0x7f800000u); }

// 2^k for k in double's normal exponent range.
PLAB_HD double pow2(int k) { return bits_double(static_cast<std::uint64_t>(k + 1023) << 52); }

// v rounded to the nearest integer, ties to even (|v| < 2^51): adding and
// taking away 1.5 * 2^52 leaves no fraction bits, whatever the rounding library.
template <typename T>
PLAB_HD T round_to_integer(T v) {
    constexpr double kShift = 6755399441055744.0;  // 1.5 * 2^52
    return (v + kShift) - kShift;
}

}  // namespace portable_math

// e^x's parts, shared with the vector path (portable_exp_array.h), which
// runs them on vectors of doubles: T is double or such a vector, so both do
// the same operations in the same order.
namespace portable_math {
inline constexpr double kLog2E = 1.4426950408889634;
// ln2's high part has 32 significant bits, so k * kLn2High is exact for the |k| <= 151 seen here.
inline constexpr double kLn2High = 6.93147180369123816490e-01;
inline constexpr double kLn2Low = 1.90821492927058770002e-10;

// x = k ln2 + r with |r| <= ln2 / 2: k, as a double holding an integer.
template <typename T>
PLAB_HD T exp_multiple_of_ln2(T x) {
    return round_to_integer(x * kLog2E);
}

// e^r for r = x - k ln2 by its Taylor series to r^13 / 13! (the next term is
// below 5e-18 relative). Each 1 / n! is one correctly rounded division of an
// exact n!, done by the compiler: at run time the table cost a division per
// term, the largest part of a GELU backward.
template <typename T>
PLAB_HD T exp_of_remainder(T x, T k) {
    const T r = (x - k * kLn2High) - k * kLn2Low;
    constexpr double inverse[14] = {1.0,           1.0,           1.0 / 2,         1.0 / 6,         1.0 / 24,
                                    1.0 / 120,     1.0 / 720,     1.0 / 5040,      1.0 / 40320,     1.0 / 362880,
                                    1.0 / 3628800, 1.0 / 39916800, 1.0 / 479001600, 1.0 / 6227020800.0};
    T sum = r * inverse[13] + inverse[12];
    for (int n = 11; n >= 0; --n) sum = sum * r + inverse[n];
    return sum;
}
}  // namespace portable_math

// e^x, rounded to FP32 (see above). Overflows to +Inf above 88.72, flushes to
// +0 below -103.97, as the correctly rounded function does; NaN stays NaN.
PLAB_HD float portable_exp(float x) {
    if (x != x) return x + x;
    if (x > 89.0f) return portable_math::infinity();
    if (x < -104.0f) return 0.0f;
    const double xd = x;
    const double k = portable_math::exp_multiple_of_ln2(xd);
    const double sum = portable_math::exp_of_remainder(xd, k);
    return static_cast<float>(sum * portable_math::pow2(static_cast<int>(k)));
}

// The natural logarithm, rounded to FP32 (see above): -Inf at 0 (either
// sign), NaN below 0, +Inf at +Inf; NaN stays NaN.
PLAB_HD float portable_log(float x) {
    if (x != x) return x + x;
    if (x == 0.0f) return -portable_math::infinity();
    if (x < 0.0f) return bits_float(0x7fc00000u);
    if (x == portable_math::infinity()) return x;
    // x = m 2^e with m in [sqrt(1/2), sqrt(2)); log m = 2 atanh(s) with
    // s = (m - 1) / (m + 1), |s| < 0.1716, summed to s^25 / 25 (the next
    // term is below 1e-19 relative). FP32 subnormals are normal in double.
    const std::uint64_t bits = portable_math::double_bits(static_cast<double>(x));
    int e = static_cast<int>((bits >> 52) & 0x7ff) - 1023;
    double m = portable_math::bits_double((bits & ((std::uint64_t{1} << 52) - 1)) | (std::uint64_t{1023} << 52));
    if (m > 1.4142135623730951) {
        m *= 0.5;
        ++e;
    }
    const double s = (m - 1.0) / (m + 1.0);
    const double s2 = s * s;
    double series = 1.0 / 25.0;
    for (int n = 23; n >= 1; n -= 2) series = series * s2 + 1.0 / n;
    // e ln2 with ln2's high part exact in the product (|e| <= 149): the low
    // part's error stays far below what the FP32 rounding can see.
    constexpr double kLn2High = 6.93147180369123816490e-01;
    constexpr double kLn2Low = 1.90821492927058770002e-10;
    return static_cast<float>(e * kLn2High + (e * kLn2Low + 2.0 * s * series));
}

}  // namespace plab
