#include "engine/telemetry/tensor_stats_exact.h"

#include <bit>
#include <cmath>
#include <stdexcept>

namespace plab {

WideUint::WideUint(std::uint64_t v) {
    limbs_[0] = static_cast<std::uint32_t>(v);
    limbs_[1] = static_cast<std::uint32_t>(v >> 32);
}

int WideUint::bit_length() const {
    for (int i = kLimbs - 1; i >= 0; --i)
        if (limbs_[i] != 0) return 32 * i + std::bit_width(limbs_[i]);
    return 0;
}

WideUint operator*(const WideUint& a, const WideUint& b) {
    if (a.bit_length() + b.bit_length() > WideUint::kBits) throw std::logic_error("WideUint: product overflows");
    WideUint r;
    for (int i = 0; i < WideUint::kLimbs; ++i) {
        std::uint64_t carry = 0;
        for (int j = 0; i + j < WideUint::kLimbs; ++j) {
            const std::uint64_t t = static_cast<std::uint64_t>(a.limbs_[i]) * b.limbs_[j] + r.limbs_[i + j] + carry;
            r.limbs_[i + j] = static_cast<std::uint32_t>(t);
            carry = t >> 32;
        }
    }
    return r;
}

int compare(const WideUint& a, const WideUint& b) {
    for (int i = WideUint::kLimbs - 1; i >= 0; --i)
        if (a.limbs_[i] != b.limbs_[i]) return a.limbs_[i] < b.limbs_[i] ? -1 : 1;
    return 0;
}

WideUint WideUint::shifted_left(int shift) const {
    if (shift < 0 || bit_length() + shift > kBits) throw std::logic_error("WideUint: shift overflows");
    WideUint r;
    const int limb_shift = shift / 32;
    const int bit_shift = shift % 32;
    for (int i = kLimbs - 1; i >= limb_shift; --i) {
        std::uint64_t v = static_cast<std::uint64_t>(limbs_[i - limb_shift]) << bit_shift;
        if (bit_shift != 0 && i - limb_shift - 1 >= 0) v |= limbs_[i - limb_shift - 1] >> (32 - bit_shift);
        r.limbs_[i] = static_cast<std::uint32_t>(v);
    }
    return r;
}

int compare_scaled(const WideUint& a, int a_exp, const WideUint& b, int b_exp) {
    if (a.is_zero() || b.is_zero()) return compare(a, b);
    // Different leading-bit positions decide at once; equal ones leave an
    // alignment shift no larger than the shorter operand's shortfall, which fits.
    const int a_top = a.bit_length() + a_exp;
    const int b_top = b.bit_length() + b_exp;
    if (a_top != b_top) return a_top < b_top ? -1 : 1;
    if (a_exp >= b_exp) return compare(a.shifted_left(a_exp - b_exp), b);
    return compare(a, b.shifted_left(b_exp - a_exp));
}

Dyadic to_dyadic(double v) {
    if (!(v >= 0) || !std::isfinite(v)) throw std::logic_error("to_dyadic: needs a finite value >= 0");
    if (v == 0) return {};
    int e = 0;
    const double m = std::frexp(v, &e);  // v = m * 2^e, 0.5 <= m < 1, exactly
    return {static_cast<std::uint64_t>(std::ldexp(m, 53)), e - 53};
}

}  // namespace plab
