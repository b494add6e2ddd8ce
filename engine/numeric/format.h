#pragma once
// The number formats Precision Lab knows, as exact bit-level parameters.
// Everything that reasons about a format (casts, bit views, range tables,
// telemetry bands) reads these constants; nothing else hard-codes them.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>

#include "engine/common/host_device.h"

namespace plab {

enum class FormatId : std::uint8_t { fp32, tf32, fp16, bf16, e4m3, e5m2 };
inline constexpr int kFormatCount = 6;
inline constexpr std::array<FormatId, kFormatCount> kAllFormats = {
    FormatId::fp32, FormatId::tf32, FormatId::fp16, FormatId::bf16, FormatId::e4m3, FormatId::e5m2};

// What an FP8 cast does with a value beyond the largest finite number.
// `saturate` clamps to +-max (the usual training choice); `nan` gives NaN for
// E4M3 (it has no infinity) and Inf for E5M2. Other formats always overflow to Inf.
enum class Overflow : std::uint8_t { saturate, nan };

// Bit-level shape of a format: 1 sign bit, exp_bits exponent bits, man_bits
// stored mantissa bits. `has_inf` is false for E4M3, whose only non-finite
// patterns are S.1111.111 (NaN); every other format follows IEEE 754.
struct FormatParams {
    int exp_bits;
    int man_bits;
    int bias;
    bool has_inf;
    bool is_fp8;

    PLAB_HD constexpr int total_bits() const { return 1 + exp_bits + man_bits; }
    PLAB_HD constexpr int min_exponent() const { return 1 - bias; }  // of the smallest normal
    PLAB_HD constexpr std::uint32_t exp_mask() const { return (1u << exp_bits) - 1u; }
    PLAB_HD constexpr std::uint32_t man_mask() const { return (1u << man_bits) - 1u; }
    PLAB_HD constexpr std::uint32_t sign_bit() const { return 1u << (exp_bits + man_bits); }
    // Magnitude code of +infinity (IEEE formats only).
    PLAB_HD constexpr std::uint32_t inf_code() const { return exp_mask() << man_bits; }
    // Magnitude code of the canonical quiet NaN.
    PLAB_HD constexpr std::uint32_t nan_code() const {
        return has_inf ? (inf_code() | (1u << (man_bits - 1))) : (sign_bit() - 1u);
    }
    // Magnitude code of the largest finite value: all-ones exponent is reserved
    // in IEEE formats; E4M3 only reserves mantissa 111 of the top binade.
    PLAB_HD constexpr std::uint32_t max_code() const { return has_inf ? inf_code() - 1u : nan_code() - 1u; }
    PLAB_HD constexpr int max_exponent() const {
        return static_cast<int>(max_code() >> man_bits) - bias;
    }
    // Magnitude code a value too large for the format becomes.
    PLAB_HD constexpr std::uint32_t overflow_code(Overflow mode) const {
        if (!is_fp8) return inf_code();
        if (mode == Overflow::saturate) return max_code();
        return has_inf ? inf_code() : nan_code();
    }
};

PLAB_HD constexpr FormatParams format_params(FormatId f) {
    switch (f) {
        case FormatId::fp32: return {8, 23, 127, true, false};
        case FormatId::tf32: return {8, 10, 127, true, false};
        case FormatId::fp16: return {5, 10, 15, true, false};
        case FormatId::bf16: return {8, 7, 127, true, false};
        case FormatId::e4m3: return {4, 3, 7, false, true};
        case FormatId::e5m2: return {5, 2, 15, true, true};
    }
    return {8, 23, 127, true, false};
}

// Bytes one element occupies in an array of this format. TF32 lives in an
// FP32 container (as on the GPU): its array storage is the FP32 bit pattern.
constexpr int storage_bytes(FormatId f) {
    const int bits = format_params(f).total_bits();
    return bits <= 8 ? 1 : bits <= 16 ? 2 : 4;
}

// The unsigned integer type of one stored element.
template <FormatId F>
using StorageWord = std::conditional_t<storage_bytes(F) == 1, std::uint8_t,
                                       std::conditional_t<storage_bytes(F) == 2, std::uint16_t, std::uint32_t>>;

// An encoded value as stored, and back: the identity except for TF32, whose
// 19-bit code sits at the top of its FP32 container.
PLAB_HD constexpr std::uint32_t code_to_storage(FormatId f, std::uint32_t code) {
    return f == FormatId::tf32 ? code << 13 : code;
}
PLAB_HD constexpr std::uint32_t storage_to_code(FormatId f, std::uint32_t word) {
    return f == FormatId::tf32 ? word >> 13 : word;
}

std::string_view format_name(FormatId f);          // "fp16"
std::string_view format_display_name(FormatId f);  // "FP16"
std::string_view format_description(FormatId f);   // "IEEE binary16"
std::optional<FormatId> parse_format(std::string_view name);  // accepts format_name()
std::string format_choices();                     // "fp32|tf32|fp16|bf16|e4m3|e5m2"

std::string_view overflow_name(Overflow o);
std::optional<Overflow> parse_overflow(std::string_view name);

}  // namespace plab
