#pragma once
// The data sets' random numbers, the same on every platform.
//
// std::mt19937_64's output sequence is fixed by the standard, but the standard
// distributions (uniform_real_distribution, normal_distribution,
// uniform_int_distribution) are implementation-defined: libstdc++, libc++ and
// MSVC turn the same engine output into different numbers. A seed must give
// the same data everywhere (docs/DESIGN.md, "Conventions"), so the three
// distributions the data sets need are written out here.
#include <cmath>
#include <cstdint>
#include <numbers>
#include <random>

namespace plab {

class Rng {
public:
    explicit Rng(std::uint64_t seed) : engine_(seed) {}

    // The raw engine output.
    std::uint64_t next() { return engine_(); }

    // Uniform in [0, 1): the top 53 bits scaled by 2^-53, so every value is
    // an exact double on an even grid and 1.0 never comes out.
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

    // Standard normal by Box-Muller. Each pair of uniforms yields two
    // independent values; the second is kept for the next call.
    double normal() {
        if (has_spare_) {
            has_spare_ = false;
            return spare_;
        }
        const double u1 = 1.0 - uniform();  // (0, 1]: the log never sees 0
        const double u2 = uniform();
        const double r = std::sqrt(-2.0 * std::log(u1));
        const double angle = 2.0 * std::numbers::pi * u2;
        spare_ = r * std::sin(angle);
        has_spare_ = true;
        return r * std::cos(angle);
    }

    // Uniform integer in [0, n), n > 0. Plain `next() % n` favours small
    // results; draws below 2^64 mod n are rejected so that the accepted range
    // holds a whole number of copies of [0, n).
    std::uint64_t below(std::uint64_t n) {
        const std::uint64_t reject_below = (0 - n) % n;  // 2^64 mod n
        for (;;) {
            const std::uint64_t x = next();
            if (x >= reject_below) return x % n;
        }
    }

private:
    std::mt19937_64 engine_;
    double spare_ = 0.0;
    bool has_spare_ = false;
};

}  // namespace plab
