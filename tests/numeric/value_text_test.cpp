#include <gtest/gtest.h>

#include <cmath>

#include "engine/common/error.h"
#include "engine/numeric/scalar_cast.h"
#include "engine/numeric/value_text.h"

namespace plab {
namespace {

std::uint32_t parsed_bits(const char* text) { return float_bits(parse_fp32_value(text)); }

TEST(ValueText, DecimalAndScientificRoundCorrectlyToFp32) {
    EXPECT_EQ(parsed_bits("0.1"), 0x3dcccccdu);
    EXPECT_EQ(parsed_bits("-2"), 0xc0000000u);
    EXPECT_EQ(parsed_bits("+1.5"), 0x3fc00000u);
    EXPECT_EQ(parsed_bits(".5"), 0x3f000000u);
    EXPECT_EQ(parsed_bits("5."), 0x40a00000u);
    EXPECT_EQ(parsed_bits("6.1e-5"), float_bits(6.1e-5f));
    EXPECT_EQ(parsed_bits("65520"), 0x477ff000u);
    // 1 + 2^-24 + 2^-60: just above the FP32 tie, must round up (a double detour rounds down).
    EXPECT_EQ(parsed_bits("1.000000059604644776117201055"), 0x3f800001u);
    EXPECT_EQ(parsed_bits("1e-45"), 0x00000001u);  // nearest is the smallest subnormal
}

TEST(ValueText, OutOfRangeBehavesLikeATensor) {
    EXPECT_EQ(parsed_bits("1e39"), 0x7f800000u);
    EXPECT_EQ(parsed_bits("-1e400"), 0xff800000u);
    EXPECT_EQ(parsed_bits("1e-50"), 0x00000000u);
    EXPECT_EQ(parsed_bits("-1e-400"), 0x80000000u);
}

TEST(ValueText, SpecialWordsAndBits) {
    EXPECT_EQ(parsed_bits("inf"), 0x7f800000u);
    EXPECT_EQ(parsed_bits("-inf"), 0xff800000u);
    EXPECT_EQ(parsed_bits("Infinity"), 0x7f800000u);
    EXPECT_TRUE(std::isnan(parse_fp32_value("nan")));
    EXPECT_TRUE(std::signbit(parse_fp32_value("-nan")));
    EXPECT_EQ(parsed_bits("0x3f800000"), 0x3f800000u);
    EXPECT_EQ(parsed_bits("0X7FC00001"), 0x7fc00001u);
}

TEST(ValueText, RejectsWithAMessageNamingTheText) {
    for (const char* bad : {"abc", "", "1.2.3", "e5", "1e", "0xZZ", "0x3f80", "0x3f8000000", "--1", "1,5", "nan1",
                            "0x3f80000g", " 1"}) {
        try {
            parse_fp32_value(bad);
            ADD_FAILURE() << "accepted '" << bad << "'";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("0x plus 8 hex digits"), std::string::npos) << e.what();
        }
    }
}

}  // namespace
}  // namespace plab
