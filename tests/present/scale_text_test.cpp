// Scales as text and back, against hand-written cases.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "ui/present/scale_text.h"

namespace plab {
namespace {

TEST(ScaleText, PowersOfTwoAsPowers) {
    EXPECT_EQ(scale_text(65536), "2^16");
    EXPECT_EQ(scale_text(1), "2^0");
    EXPECT_EQ(scale_text(std::ldexp(1.0, -89)), "2^-89");  // the histogram caption's 1.61559e-27
}

TEST(ScaleText, OtherScalesAsShortDecimals) {
    EXPECT_EQ(scale_text(1.5), "1.5");
    EXPECT_EQ(scale_text(3e-8), "3e-08");
    EXPECT_EQ(scale_text(1.0 / 3.0), "0.333333");
    EXPECT_EQ(scale_text(std::numeric_limits<double>::infinity()), "inf");
}

TEST(ParseScaleText, PowersAndDecimals) {
    EXPECT_EQ(parse_scale_text("2^-30"), std::ldexp(1.0, -30));
    EXPECT_EQ(parse_scale_text(" 2^ 16 "), 65536.0);
    EXPECT_EQ(parse_scale_text("2^+3"), 8.0);
    EXPECT_EQ(parse_scale_text("1e-8"), 1e-8);
    EXPECT_EQ(parse_scale_text("0.25"), 0.25);
    EXPECT_EQ(parse_scale_text("3e-08"), 3e-8);
}

TEST(ParseScaleText, RejectsWhatIsNoScale) {
    EXPECT_FALSE(parse_scale_text(""));
    EXPECT_FALSE(parse_scale_text("2^"));
    EXPECT_FALSE(parse_scale_text("2^1.5"));
    EXPECT_FALSE(parse_scale_text("1e-8x"));
    EXPECT_FALSE(parse_scale_text("inf"));
    EXPECT_FALSE(parse_scale_text("abc"));
}

TEST(ParseScaleText, ReadsBackWhatScaleTextWrites) {
    // Powers of two exactly; the others have at most 6 significant digits, so the text is exact too.
    for (double v : {std::ldexp(1.0, -120), 1e-7, 0.75, 65536.0, 3.0e20})
        EXPECT_EQ(*parse_scale_text(scale_text(v)), v) << scale_text(v);
}

TEST(ParsePowerOfTwoScale, TakesPowersAndDecimalsWhole) {
    EXPECT_EQ(parse_power_of_two_scale("2^24"), 16777216.0);
    EXPECT_EQ(parse_power_of_two_scale("2^-24"), std::ldexp(1.0, -24));
    EXPECT_EQ(parse_power_of_two_scale("65536"), 65536.0);
    EXPECT_EQ(parse_power_of_two_scale("0.125"), 0.125);
    EXPECT_EQ(parse_power_of_two_scale("2^64"), std::ldexp(1.0, 64));
}

TEST(ParsePowerOfTwoScale, RoundsOtherValuesToTheNearestPowerInLog2) {
    EXPECT_EQ(parse_power_of_two_scale("6.5e4"), 65536.0);
    EXPECT_EQ(parse_power_of_two_scale("5e4"), 65536.0);  // log2 15.61
    EXPECT_EQ(parse_power_of_two_scale("4e4"), 32768.0);  // log2 15.29
    EXPECT_EQ(parse_power_of_two_scale("1000"), 1024.0);
    EXPECT_EQ(parse_power_of_two_scale("3"), 4.0);  // log2 1.58
    EXPECT_EQ(parse_power_of_two_scale("0.3"), 0.25);  // log2 -1.74
}

TEST(ParsePowerOfTwoScale, RejectsWhatIsNoPositiveScale) {
    for (const char* text : {"0", "-65536", "2^", "2^1.5", "2^2^4", "inf", "1e-8x"})
        EXPECT_FALSE(parse_power_of_two_scale(text)) << text;
}

}  // namespace
}  // namespace plab
