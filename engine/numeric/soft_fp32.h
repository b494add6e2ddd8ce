#pragma once
// FP32 arithmetic that never hands the FPU a subnormal FP32 operand or result,
// with results bit-identical to plain `float` arithmetic (round to nearest,
// ties to even, subnormals kept).
//
// Why: many x86 cores (Intel's above all) take a microcode assist of a
// hundred or more cycles for an SSE/AVX operation that reads or produces a
// subnormal FP32 value. The lab keeps IEEE subnormals, as PyTorch on a CPU
// does, and an optimizer's moments of a unit that stopped learning decay
// into the subnormal range and stay there (0.9 * 2^-149 rounds back to
// 2^-149): a long run would do more and more of its optimizer arithmetic
// through that slow path.
//
// How: the value is held in a double, where every FP32 value is normal. For
// + - * on FP32 operands the double result is exact or, for / and sqrt,
// rounded innocuously (53 >= 2 * 24 + 2 bits: rounding twice gives the
// once-rounded FP32 result). Each result is then rounded to FP32: a normal
// one by the conversion, one in the subnormal range onto its grid of
// multiples of 2^-149 by integer rounding of a normal double, its bits built
// by hand. Reading a subnormal FP32 input goes through its bits as well.
#include <cmath>
#include <cstdint>

#include "engine/numeric/scalar_cast.h"

namespace plab {

class SoftFp32 {
public:
    SoftFp32(float x) : value_(widen(x)) {}  // NOLINT: implicit, as float's own arithmetic mixes

    float fp32() const { return narrow(value_); }

    friend SoftFp32 operator+(SoftFp32 a, SoftFp32 b) { return rounded(a.value_ + b.value_); }
    friend SoftFp32 operator-(SoftFp32 a, SoftFp32 b) { return rounded(a.value_ - b.value_); }
    friend SoftFp32 operator*(SoftFp32 a, SoftFp32 b) { return rounded(a.value_ * b.value_); }
    friend SoftFp32 operator/(SoftFp32 a, SoftFp32 b) { return rounded(a.value_ / b.value_); }
    friend SoftFp32 sqrt_of(SoftFp32 a) { return rounded(std::sqrt(a.value_)); }

private:
    struct Exact {};
    SoftFp32(double fp32_value, Exact) : value_(fp32_value) {}

    // Each path is computed on a safe operand and the result selected, so
    // that nothing ever converts or computes with a subnormal FP32 value.
    static constexpr double kSmallestNormal = 0x1p-126;
    // 1.5 * 2^-97: adding it puts any |v| < 2^-126 into a binade whose
    // spacing is 2^-149, FP32's subnormal grid, rounding to nearest, ties to
    // even (the constant is an even multiple of the spacing).
    static constexpr double kGridMagic = 0x1.8p-97;

    // An FP32 value as a double.
    static double widen(float x) {
        const std::uint32_t bits = float_bits(x);
        const bool subnormal = (bits & 0x7f800000u) == 0;
        const double units = static_cast<double>(static_cast<std::int32_t>(bits & 0x7fffffu));
        const double tiny = (bits >> 31) ? -units * 0x1p-149 : units * 0x1p-149;
        const double normal = static_cast<double>(subnormal ? 1.0f : x);
        return subnormal ? tiny : normal;
    }

    // A double holding an FP32 value back as float (exact).
    static float narrow(double v) {
        const double magnitude = std::fabs(v);
        const bool tiny = magnitude < kSmallestNormal;
        const auto units = static_cast<std::uint32_t>(static_cast<std::int32_t>((tiny ? magnitude : 0.0) * 0x1p149));
        const float subnormal = bits_float((std::signbit(v) ? 0x80000000u : 0u) | units);
        const float normal = static_cast<float>(tiny ? 1.0 : v);  // Inf and NaN too
        return tiny ? subnormal : normal;
    }

    // v rounded to FP32, still held as a double; a result that rounds up
    // to 2^-126 is the smallest normal, and one that rounds to zero keeps
    // its sign, as IEEE underflow does.
    static SoftFp32 rounded(double v) {
        const double magnitude = std::fabs(v);
        const bool tiny = magnitude < kSmallestNormal;
        const double grid = std::copysign((magnitude + kGridMagic) - kGridMagic, v);
        const double normal = static_cast<double>(static_cast<float>(tiny ? 1.0 : v));  // Inf and NaN too
        return SoftFp32(tiny ? grid : normal, Exact{});
    }

    double value_;
};

// The FP32 value of either number type, for code templated on it.
inline float fp32_of(SoftFp32 x) { return x.fp32(); }
inline float fp32_of(float x) { return x; }

}  // namespace plab
