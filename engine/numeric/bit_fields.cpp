#include "engine/numeric/bit_fields.h"

#include <cmath>
#include <string>

#include "engine/numeric/scalar_cast.h"

namespace plab {

std::string_view class_name(ValueClass c) {
    switch (c) {
        case ValueClass::zero: return "zero";
        case ValueClass::subnormal: return "subnormal";
        case ValueClass::normal: return "normal";
        case ValueClass::inf: return "inf";
        case ValueClass::nan: return "nan";
    }
    return "?";
}

BitFields decompose(FormatId f, std::uint32_t code) {
    const FormatParams p = format_params(f);
    BitFields b;
    b.code = code;
    b.sign = (code & p.sign_bit()) != 0;
    b.exponent_field = (code >> p.man_bits) & p.exp_mask();
    b.mantissa_field = code & p.man_mask();
    b.exponent = b.exponent_field == 0 ? p.min_exponent() : static_cast<int>(b.exponent_field) - p.bias;
    if (code_is_nan(p, code))
        b.value_class = ValueClass::nan;
    else if (code_is_inf(p, code))
        b.value_class = ValueClass::inf;
    else if (b.exponent_field != 0)
        b.value_class = ValueClass::normal;
    else
        b.value_class = b.mantissa_field ? ValueClass::subnormal : ValueClass::zero;
    return b;
}

namespace {

// Largest magnitude code that is a number (finite or infinite).
std::uint32_t top_code(const FormatParams& p) { return p.has_inf ? p.inf_code() : p.max_code(); }

// Step one value away from zero (outward) or towards it, in sign-magnitude.
std::optional<std::uint32_t> step(FormatId f, std::uint32_t code, bool up) {
    const FormatParams p = format_params(f);
    if (code_is_nan(p, code)) return std::nullopt;
    const std::uint32_t sign = code & p.sign_bit();
    const std::uint32_t magnitude = code & (p.sign_bit() - 1u);
    const bool outward = (sign == 0) == up;
    if (outward) {
        if (magnitude == top_code(p)) return std::nullopt;
        return sign | (magnitude + 1u);
    }
    if (magnitude == 0) return (sign ^ p.sign_bit()) | 1u;  // across zero: +-0 -> the smallest subnormal
    return sign | (magnitude - 1u);
}

}  // namespace

std::optional<std::uint32_t> next_up(FormatId f, std::uint32_t code) { return step(f, code, true); }
std::optional<std::uint32_t> next_down(FormatId f, std::uint32_t code) { return step(f, code, false); }

double ulp(FormatId f, float x, Overflow mode) {
    if (std::isnan(x)) return std::nan("");
    const FormatParams p = format_params(f);
    const std::uint32_t magnitude = encode(p, x, mode) & (p.sign_bit() - 1u);
    const std::uint32_t finite = magnitude > p.max_code() ? p.max_code() : magnitude;
    const std::uint32_t field = finite >> p.man_bits;
    const int exponent = field == 0 ? p.min_exponent() : static_cast<int>(field) - p.bias;
    return std::ldexp(1.0, exponent - p.man_bits);
}

std::string hex_code(FormatId f, std::uint32_t code) {
    const int digits = (format_params(f).total_bits() + 3) / 4;
    static constexpr char kHex[] = "0123456789abcdef";
    std::string out = "0x";
    for (int d = digits - 1; d >= 0; --d) out += kHex[(code >> (4 * d)) & 0xfu];
    return out;
}

}  // namespace plab
