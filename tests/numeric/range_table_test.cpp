// The range table against the constants of docs/DESIGN.md, written out by hand.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/numeric/range_table.h"

namespace plab {
namespace {

struct Expected {
    FormatId format;
    double max;
    int min_normal_exp, min_subnormal_exp, epsilon_exp;
};

TEST(RangeTable, MatchesTheDesignConstants) {
    const Expected table[] = {
        {FormatId::fp32, 3.4028234663852886e38, -126, -149, -23},
        {FormatId::tf32, 3.4011621342146535e38, -126, -136, -10},
        {FormatId::fp16, 65504.0, -14, -24, -10},
        {FormatId::bf16, 3.3895313892515355e38, -126, -133, -7},
        {FormatId::e4m3, 448.0, -6, -9, -3},
        {FormatId::e5m2, 57344.0, -14, -16, -2},
    };
    const auto rows = range_table();
    ASSERT_EQ(rows.size(), 6u);
    for (std::size_t i = 0; i < rows.size(); ++i) {
        const Expected& e = table[i];
        const FormatRange& r = rows[i];
        SCOPED_TRACE(std::string(format_name(e.format)));
        EXPECT_EQ(r.format, e.format);
        EXPECT_EQ(r.max, e.max);
        EXPECT_EQ(r.min_normal, std::ldexp(1.0, e.min_normal_exp));
        EXPECT_EQ(r.min_subnormal, std::ldexp(1.0, e.min_subnormal_exp));
        EXPECT_EQ(r.epsilon, std::ldexp(1.0, e.epsilon_exp));
    }
    EXPECT_NEAR(rows[0].decimal_digits, 7.22, 0.005);
    EXPECT_NEAR(rows[2].decimal_digits, 3.31, 0.005);
    EXPECT_NEAR(rows[3].decimal_digits, 2.41, 0.005);
    EXPECT_EQ(rows[4].max_exponent, 8);
    EXPECT_EQ(rows[5].max_exponent, 15);
}

}  // namespace
}  // namespace plab
