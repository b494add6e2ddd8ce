// An independent, slow and obviously-correct cast: list every value of the
// format (computed with ldexp in double), find the nearest by binary search,
// break ties towards the even code. The scalar reference must agree with it
// on millions of inputs chosen to hit every tie and binade, and all codes
// must decode to the listed values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "engine/numeric/scalar_cast.h"
#include "format_test_name.h"

namespace plab {
namespace {

// Value of a non-negative magnitude code from the textbook formula.
double textbook_value(const FormatParams& p, std::uint32_t code) {
    const std::uint32_t e = code >> p.man_bits, m = code & p.man_mask();
    if (e == 0) return std::ldexp(static_cast<double>(m), 1 - p.bias - p.man_bits);
    return std::ldexp(static_cast<double>((1u << p.man_bits) | m), static_cast<int>(e) - p.bias - p.man_bits);
}

class NearestValue {
public:
    explicit NearestValue(FormatId f) : p_(format_params(f)) {
        for (std::uint32_t c = 0; c <= p_.max_code(); ++c) values_.push_back(textbook_value(p_, c));
        // A value one step past the largest: rounding to it means overflow.
        const double top_step = std::ldexp(1.0, p_.max_exponent() - p_.man_bits);
        values_.push_back(values_.back() + top_step);
    }

    std::uint32_t encode_slowly(float x, Overflow mode) const {
        const std::uint32_t sign = std::signbit(x) ? p_.sign_bit() : 0u;
        const double a = std::fabs(static_cast<double>(x));
        const auto hi = std::lower_bound(values_.begin(), values_.end(), a);
        std::uint32_t code;
        if (hi == values_.end()) {
            code = static_cast<std::uint32_t>(values_.size() - 1);  // beyond everything: overflow
        } else if (*hi == a || hi == values_.begin()) {
            code = static_cast<std::uint32_t>(hi - values_.begin());
        } else {
            const auto lo = hi - 1;
            const double below = a - *lo, above = *hi - a;  // exact: dyadic numbers of few bits
            const auto lo_code = static_cast<std::uint32_t>(lo - values_.begin());
            code = below < above ? lo_code : above < below ? lo_code + 1 : (lo_code % 2 == 0 ? lo_code : lo_code + 1);
        }
        if (code > p_.max_code()) code = p_.overflow_code(mode);
        return sign | code;
    }

    double value(std::uint32_t code) const { return values_[code]; }

private:
    FormatParams p_;
    std::vector<double> values_;
};

// Inputs: every sign/exponent/top-mantissa pattern with low bits chosen to
// land on, just below and just above the ties of every format, plus random bits.
std::vector<float> interesting_inputs() {
    std::vector<float> out;
    for (std::uint32_t top = 0; top < (1u << 19); ++top)
        for (std::uint32_t low : {0x0000u, 0x0001u, 0x0fffu, 0x1000u, 0x1001u, 0x1fffu})
            out.push_back(bits_float(top << 13 | low));
    std::mt19937 rng(12345);
    for (int i = 0; i < 1'000'000; ++i) out.push_back(bits_float(static_cast<std::uint32_t>(rng())));
    return out;
}

class SlowReference : public testing::TestWithParam<FormatId> {};

TEST_P(SlowReference, ScalarReferenceFindsTheNearestValueTiesToEven) {
    const FormatId f = GetParam();
    const NearestValue slow(f);
    static const std::vector<float> inputs = interesting_inputs();
    for (Overflow mode : {Overflow::saturate, Overflow::nan}) {
        std::size_t checked = 0;
        for (float x : inputs) {
            if (!std::isfinite(x)) continue;
            const std::uint32_t want = slow.encode_slowly(x, mode);
            const std::uint32_t got = encode(f, x, mode);
            ASSERT_EQ(got, want) << format_name(f) << " input bits 0x" << std::hex << float_bits(x) << " mode "
                                 << overflow_name(mode);
            ++checked;
        }
        EXPECT_GT(checked, 3'000'000u);
    }
}

TEST_P(SlowReference, EveryCodeDecodesToItsTextbookValue) {
    const FormatId f = GetParam();
    const FormatParams p = format_params(f);
    const NearestValue slow(f);
    for (std::uint32_t c = 0; c <= p.max_code(); ++c) {
        ASSERT_EQ(static_cast<double>(decode(f, c)), slow.value(c)) << "code " << c;
        ASSERT_EQ(static_cast<double>(decode(f, c | p.sign_bit())), -slow.value(c)) << "code " << c;
    }
}

INSTANTIATE_TEST_SUITE_P(NarrowFormats, SlowReference,
                         testing::Values(FormatId::tf32, FormatId::fp16, FormatId::bf16, FormatId::e4m3,
                                         FormatId::e5m2),
                         test::format_test_name);

}  // namespace
}  // namespace plab
