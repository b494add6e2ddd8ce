#pragma once
// FP16, BF16 and TF32 to and from FP32 in a few integer operations: the same
// bits as the shared cast (scalar_cast.h) for every input, which
// tests/numeric/exhaustive_cast_test.cpp checks over all 2^32 floats and all
// 65536 codes. The GPU's tensors read and write their values through these;
// the shared cast is general over formats and costs tens of instructions and
// several branches per value, which made elementwise kernels compute-bound.
//
// Only NaNs (and, on decode, infinities) take the shared routine: they are
// rare, and it is the one definition of their payload rule.
#include <cstdint>

#include "engine/common/host_device.h"
#include "engine/numeric/scalar_cast.h"

namespace plab {

// Rounds |x| < 2^-14 into FP16's subnormal codes with one FP32 addition:
// 0.5 + |x| has its last bit at 2^-24, FP16's subnormal step, so the add
// rounds |x| to that step (nearest, ties to even), and the code is what the
// add left above 0.5's bits. A value that rounds up to 2^-14 gives 0x400,
// the smallest normal code, as it should.
PLAB_HD std::uint32_t fp16_code_below_normal(std::uint32_t magnitude) {
    return float_bits(bits_float(magnitude) + 0.5f) - float_bits(0.5f);
}

PLAB_HD std::uint16_t encode_fp16(float x) {
    constexpr FormatParams fp16 = format_params(FormatId::fp16);
    const std::uint32_t u = float_bits(x);
    const std::uint32_t sign = (u >> 16) & 0x8000u;
    const std::uint32_t magnitude = u & 0x7fffffffu;
    if (magnitude > 0x7f800000u) [[unlikely]]
        return static_cast<std::uint16_t>(encode(fp16, x));
    std::uint32_t code;
    if (magnitude < 0x38800000u) {  // below 2^-14, FP16's smallest normal
        code = fp16_code_below_normal(magnitude);
    } else if (magnitude < 0x47800000u) {  // below 2^16: rebias, then round off 13 bits
        const std::uint32_t rebiased = magnitude - ((127u - 15u) << 23);
        code = (rebiased + 0xfffu + ((magnitude >> 13) & 1u)) >> 13;  // a carry moves into the exponent
        if (code > fp16.max_code()) code = fp16.inf_code();
    } else {
        code = fp16.inf_code();  // infinity, or overflow (IEEE formats round it to infinity)
    }
    return static_cast<std::uint16_t>(sign | code);
}

// BF16 has FP32's exponent range, so every non-NaN input, subnormals and
// overflow included, rounds by adding the round-to-even bias to the bits.
PLAB_HD std::uint16_t encode_bf16(float x) {
    const std::uint32_t u = float_bits(x);
    if ((u & 0x7fffffffu) > 0x7f800000u) [[unlikely]]
        return static_cast<std::uint16_t>(encode(format_params(FormatId::bf16), x));
    return static_cast<std::uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// TF32 too has FP32's exponent range: the same rounding, 13 bits off, kept
// in an FP32 word.
PLAB_HD float round_tf32(float x) {
    const std::uint32_t u = float_bits(x);
    if ((u & 0x7fffffffu) > 0x7f800000u) [[unlikely]] {
        constexpr FormatParams tf32 = format_params(FormatId::tf32);
        return decode(tf32, encode(tf32, x));
    }
    return bits_float((u + 0xfffu + ((u >> 13) & 1u)) & ~0x1fffu);
}

PLAB_HD float decode_fp16(std::uint16_t code) {
    const std::uint32_t sign = static_cast<std::uint32_t>(code & 0x8000u) << 16;
    const std::uint32_t magnitude = code & 0x7fffu;
    const std::uint32_t exponent = magnitude >> 10;
    if (exponent == 0x1fu) [[unlikely]]
        return decode(format_params(FormatId::fp16), code);
    if (exponent == 0) {  // zero or subnormal: m * 2^-24, exactly 0.5's bits plus m, less 0.5
        return bits_float(float_bits(bits_float(float_bits(0.5f) + magnitude) - 0.5f) | sign);
    }
    return bits_float(sign | ((magnitude + ((127u - 15u) << 10)) << 13));
}

PLAB_HD float decode_bf16(std::uint16_t code) {
    if ((code & 0x7fffu) > 0x7f80u) [[unlikely]]
        return decode(format_params(FormatId::bf16), code);
    return bits_float(static_cast<std::uint32_t>(code) << 16);
}

// x rounded to f, the same value as round_to(f, x): FP16, BF16 and TF32 by
// the fast casts above, other formats by the shared cast.
PLAB_HD float round_fast(FormatId f, float x) {
    switch (f) {
        case FormatId::fp32: return x;
        case FormatId::fp16: return decode_fp16(encode_fp16(x));
        case FormatId::bf16: return decode_bf16(encode_bf16(x));
        case FormatId::tf32: return round_tf32(x);
        default: return round_to(f, x);
    }
}

}  // namespace plab
