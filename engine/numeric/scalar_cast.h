#pragma once
// The reference casts between FP32 and every format, one value at a time.
//
// This is the single definition of Precision Lab's rounding: the CPU
// emulation, telemetry, the bit view and the CUDA kernels all call it (or are
// tested bit-for-bit against it). It is written for clarity, not speed: the
// SIMD paths in cast_avx2.cpp / cast_avx512.cpp are the fast versions.
//
// Rules (docs/DESIGN.md, "Number formats"):
//  * round to nearest, ties to even, into the subnormal range too;
//  * overflow -> Inf for IEEE formats; FP8 follows `Overflow`
//    (saturate: +-max, infinities included; nan: E4M3 -> NaN, E5M2 -> Inf);
//  * NaN stays NaN with its sign; the result is quiet and keeps the top
//    payload bits (what the x86 F16C / AVX-512 BF16 instructions do).
//    E4M3 has a single NaN pattern per sign, S.1111.111.
//  * an encoded value is returned in the low total_bits() bits: sign on top.
#include <cstdint>
#include <cstring>

#include "engine/common/host_device.h"
#include "engine/numeric/format.h"

namespace plab {

PLAB_HD std::uint32_t float_bits(float x) {
#if defined(__CUDA_ARCH__)
    return __float_as_uint(x);
#else
    std::uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
#endif
}

PLAB_HD float bits_float(std::uint32_t u) {
#if defined(__CUDA_ARCH__)
    return __uint_as_float(u);
#else
    float x;
    std::memcpy(&x, &u, sizeof x);
    return x;
#endif
}

// sig / 2^drop rounded to nearest, ties to even.
PLAB_HD std::uint32_t shift_right_round_even(std::uint32_t sig, int drop) {
    if (drop == 0) return sig;
    if (drop > 25) return 0;  // sig < 2^24 is below half of 2^drop: rounds to zero
    const std::uint32_t kept = sig >> drop;
    const std::uint32_t rest = sig & ((1u << drop) - 1u);
    const std::uint32_t half = 1u << (drop - 1);
    const bool round_up = rest > half || (rest == half && (kept & 1u));
    return kept + (round_up ? 1u : 0u);
}

// Magnitude code for a NaN input carrying FP32 mantissa `payload`.
PLAB_HD std::uint32_t nan_code_for(const FormatParams& p, std::uint32_t payload) {
    if (!p.has_inf) return p.nan_code();
    return p.nan_code() | (payload >> (23 - p.man_bits));
}

PLAB_HD std::uint32_t encode(const FormatParams& p, float x, Overflow mode = Overflow::saturate) {
    const std::uint32_t u = float_bits(x);
    if (p.man_bits == 23) return u;  // FP32 itself

    const std::uint32_t sign = (u >> 31) ? p.sign_bit() : 0u;
    const std::uint32_t magnitude = u & 0x7fffffffu;
    if (magnitude > 0x7f800000u) return sign | nan_code_for(p, magnitude & 0x7fffffu);
    if (magnitude == 0x7f800000u) return sign | p.overflow_code(mode);

    // x = sig * 2^(exponent - 23), sig holding the implicit bit for normals.
    int exponent = static_cast<int>(magnitude >> 23);
    std::uint32_t sig = magnitude & 0x7fffffu;
    if (exponent == 0)
        exponent = 1;  // FP32 subnormal: same scale as the smallest normal, no implicit bit
    else
        sig |= 0x800000u;
    exponent -= 127;

    // In the target the value is q * 2^(target_exp - man_bits), target_exp >= emin.
    int target_exp = exponent > p.min_exponent() ? exponent : p.min_exponent();
    if (target_exp > p.max_exponent() + 1) return sign | p.overflow_code(mode);
    const int drop = (23 - p.man_bits) + (target_exp - exponent);
    std::uint32_t q = shift_right_round_even(sig, drop);
    if (q >> (p.man_bits + 1)) {  // rounding carried into the next binade
        q >>= 1;
        ++target_exp;
    }

    const bool normal = (q >> p.man_bits) != 0;
    const std::uint32_t biased = normal ? static_cast<std::uint32_t>(target_exp + p.bias) : 0u;
    const std::uint32_t code = (biased << p.man_bits) | (q & p.man_mask());
    if (code > p.max_code()) return sign | p.overflow_code(mode);
    return sign | code;
}

PLAB_HD bool code_is_nan(const FormatParams& p, std::uint32_t code) {
    const std::uint32_t magnitude = code & (p.sign_bit() - 1u);
    return p.has_inf ? magnitude > p.inf_code() : magnitude == p.nan_code();
}

PLAB_HD bool code_is_inf(const FormatParams& p, std::uint32_t code) {
    return p.has_inf && (code & (p.sign_bit() - 1u)) == p.inf_code();
}

PLAB_HD float decode(const FormatParams& p, std::uint32_t code) {
    if (p.man_bits == 23) return bits_float(code);
    const std::uint32_t sign = (code & p.sign_bit()) ? 0x80000000u : 0u;
    const std::uint32_t biased = (code >> p.man_bits) & p.exp_mask();
    const std::uint32_t mantissa = code & p.man_mask();
    const int shift = 23 - p.man_bits;
    if (code_is_nan(p, code)) return bits_float(sign | 0x7fc00000u | (mantissa << shift));
    if (code_is_inf(p, code)) return bits_float(sign | 0x7f800000u);

    // Every value of every format is exactly an FP32 number: build it from
    // its significand q and exponent, q * 2^(e - man_bits), by integer scaling.
    const std::uint32_t q = biased ? (mantissa | (1u << p.man_bits)) : mantissa;
    const int e = (biased ? static_cast<int>(biased) : 1) - p.bias - p.man_bits;
    // 2^e, built from two normal halves so that subnormal scales stay exact.
    const int half = e / 2;
    const float scale = bits_float(static_cast<std::uint32_t>(half + 127) << 23) *
            bits_float(static_cast<std::uint32_t>(e - half + 127) << 23);
    return bits_float(float_bits(static_cast<float>(q) * scale) | sign);
}

PLAB_HD std::uint32_t encode(FormatId f, float x, Overflow mode = Overflow::saturate) {
    return encode(format_params(f), x, mode);
}

PLAB_HD float decode(FormatId f, std::uint32_t code) { return decode(format_params(f), code); }

// x as the format holds it, read back as FP32.
PLAB_HD float round_to(FormatId f, float x, Overflow mode = Overflow::saturate) {
    const FormatParams p = format_params(f);
    return decode(p, encode(p, x, mode));
}

}  // namespace plab
