// plab::Error's message as a terminal receives it: control characters
// written out (a NUL used to end the message before its reason, an escape
// sequence reached the terminal raw), a huge echoed input cut in the middle
// with the reason kept.
#include <gtest/gtest.h>

#include <string>

#include "engine/common/error.h"

namespace plab {
namespace {

using namespace std::string_literals;

TEST(ErrorMessage, ControlCharactersAreWrittenOut) {
    const Error e("preset name 'a\0b\x1b[31mred\x7f\tz' is not allowed; use letters"s);
    EXPECT_EQ(std::string(e.what()), "preset name 'a\\0b\\x1b[31mred\\x7f\\tz' is not allowed; use letters");
    EXPECT_EQ(std::string(Error("two\nlines").what()), "two\nlines");
}

TEST(ErrorMessage, AHugeMessageKeepsItsStartAndItsReason) {
    const std::string input(10'000'000, 'x');
    const std::string reason = "' as a value; expected a number";
    const std::string text = "cannot read '" + input + reason;
    const std::string m = Error(text).what();
    EXPECT_LT(m.size(), 1100u);
    EXPECT_EQ(m.rfind("cannot read 'xxx", 0), 0u);
    // 400 bytes kept from the start, 600 from the end.
    EXPECT_NE(m.find(" [... " + std::to_string(text.size() - 1000) + " bytes not shown ...] "), std::string::npos);
    EXPECT_EQ(m.substr(m.size() - reason.size()), reason);
}

TEST(ErrorMessage, TheCutFallsBetweenUtf8Characters) {
    std::string text;
    for (int i = 0; i < 1000; ++i) text += "\xc3\xa9";  // é, two bytes each
    const std::string m = Error(text).what();
    const std::size_t cut = m.find(" [... ");
    ASSERT_NE(cut, std::string::npos);
    EXPECT_EQ(cut % 2, 0u);  // whole characters before it
    EXPECT_EQ((m.size() - m.find("...] ") - 5) % 2, 0u);  // and after it
}

}  // namespace
}  // namespace plab
