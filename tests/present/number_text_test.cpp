#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "engine/common/number_text.h"

namespace plab {
namespace {

TEST(NumberText, ShortestRoundTrip) {
    EXPECT_EQ(shortest_text(0.1f), "0.1");
    EXPECT_EQ(shortest_text(static_cast<double>(0.1f)), "0.10000000149011612");
    EXPECT_EQ(shortest_text(65504.0f), "65504");
    EXPECT_EQ(shortest_text(std::numeric_limits<float>::infinity()), "inf");
    EXPECT_EQ(shortest_text(-std::numeric_limits<double>::infinity()), "-inf");
    EXPECT_EQ(shortest_text(std::nanf("")), "nan");
    EXPECT_EQ(shortest_text(-0.0f), "-0");
}

TEST(NumberText, PowersOfTwo) {
    EXPECT_EQ(power_of_two_text(std::ldexp(1.0, -14)), "2^-14");
    EXPECT_EQ(power_of_two_text(1.0), "2^0");
    EXPECT_EQ(power_of_two_text(32.0), "2^5");
    EXPECT_EQ(power_of_two_text(3.0), "3");
    EXPECT_EQ(power_of_two_text(0.0), "0");
    // An FP32 value as FP32: the diagnosis said "scale was 3.0000000054977558e+38".
    EXPECT_EQ(power_of_two_text(3e38f), "3e+38");
    EXPECT_EQ(power_of_two_text(65536.0f), "2^16");
}

// The summary said "-nan" where the records say "nan".
TEST(NumberText, SignificantNanHasNoSign) {
    EXPECT_EQ(significant_text(-std::nan(""), 4), "nan");
    EXPECT_EQ(significant_text(std::nan(""), 4), "nan");
    EXPECT_EQ(significant_text(-std::numeric_limits<double>::infinity(), 4), "-inf");
    EXPECT_EQ(significant_text(0.0000244151, 4), "2.442e-05");
}

}  // namespace
}  // namespace plab
