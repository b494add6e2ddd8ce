#pragma once
// Reading an encoded value as its sign, exponent and mantissa fields, and
// walking to its neighbours.
#include <cstdint>
#include <optional>
#include <string_view>

#include "engine/numeric/format.h"

namespace plab {

enum class ValueClass : std::uint8_t { zero, subnormal, normal, inf, nan };
std::string_view class_name(ValueClass c);  // "zero", "subnormal", ...

struct BitFields {
    std::uint32_t code = 0;            // the encoded pattern, sign on top of total_bits()
    bool sign = false;
    std::uint32_t exponent_field = 0;  // biased
    std::uint32_t mantissa_field = 0;  // stored bits, without the implicit one
    int exponent = 0;                  // unbiased; for zero and subnormals the subnormal scale 1 - bias
    ValueClass value_class = ValueClass::zero;
};

BitFields decompose(FormatId f, std::uint32_t code);

// Code of the next representable value towards +inf / -inf. Empty when there
// is none: from NaN, from +inf upwards (-inf downwards), and from E4M3's
// +-448, whose only neighbour outward is NaN.
std::optional<std::uint32_t> next_up(FormatId f, std::uint32_t code);
std::optional<std::uint32_t> next_down(FormatId f, std::uint32_t code);

// Spacing of the format's values around x (the ULP of x once rounded into
// the format): 2^(e - man_bits) with e the binade of x, never below the
// subnormal spacing. Values beyond the range use the top binade.
double ulp(FormatId f, float x, Overflow mode = Overflow::saturate);

// "0x3c00": the code as hex, zero-padded to the format's width.
std::string hex_code(FormatId f, std::uint32_t code);

}  // namespace plab
