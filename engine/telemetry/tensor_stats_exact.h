#pragma once
// Exact arithmetic for the telemetry thresholds: small unsigned integers of up
// to 256 bits, scaled by powers of two. Classifying y = x / divisor exactly
// comes down to comparing products such as x against T * divisor, or x^4
// against divisor^4 * 2^k for the quarter-binade histogram edges, which no
// floating-point type holds without rounding.
#include <array>
#include <cstdint>

namespace plab {

class WideUint {
public:
    static constexpr int kBits = 256;

    WideUint() = default;
    explicit WideUint(std::uint64_t v);

    // Number of significant bits (0 for zero).
    int bit_length() const;
    bool is_zero() const { return bit_length() == 0; }

    // Throws std::logic_error when the exact product does not fit in kBits.
    friend WideUint operator*(const WideUint& a, const WideUint& b);
    // Three-way comparison of the values.
    friend int compare(const WideUint& a, const WideUint& b);
    // this * 2^shift; throws std::logic_error when the result does not fit.
    WideUint shifted_left(int shift) const;

private:
    static constexpr int kLimbs = kBits / 32;
    std::array<std::uint32_t, kLimbs> limbs_{};  // least significant first
};

// The sign (-1, 0, +1) of a * 2^a_exp - b * 2^b_exp, exactly.
int compare_scaled(const WideUint& a, int a_exp, const WideUint& b, int b_exp);

// A non-negative finite double as significand * 2^exponent (significand < 2^53).
struct Dyadic {
    std::uint64_t significand = 0;
    int exponent = 0;
};
Dyadic to_dyadic(double v);

}  // namespace plab
