#include <gtest/gtest.h>

#include "engine/numeric/scalar_cast.h"
#include "ui/present/bit_layout.h"

namespace plab {
namespace {

std::string roles_of(const std::vector<BitCell>& cells) {
    std::string s;
    for (const BitCell& c : cells) s += c.role == BitRole::sign ? 's' : c.role == BitRole::exponent ? 'e' : 'm';
    return s;
}

std::string bits_of(const std::vector<BitCell>& cells) {
    std::string s;
    for (const BitCell& c : cells) s += c.set ? '1' : '0';
    return s;
}

TEST(BitLayout, CellsFollowTheFormatFields) {
    EXPECT_EQ(roles_of(bit_cells(FormatId::fp16, 0)), "seeeeemmmmmmmmmm");
    EXPECT_EQ(roles_of(bit_cells(FormatId::e4m3, 0)), "seeeemmm");
    EXPECT_EQ(roles_of(bit_cells(FormatId::e5m2, 0)), "seeeeemm");
    EXPECT_EQ(bit_cells(FormatId::tf32, 0).size(), 19u);
    EXPECT_EQ(bit_cells(FormatId::fp32, 0).size(), 32u);
    EXPECT_EQ(bits_of(bit_cells(FormatId::fp16, 0xbc01u)), "1011110000000001");
    EXPECT_EQ(bit_cells(FormatId::fp16, 0).front().position, 15);
    EXPECT_EQ(bit_cells(FormatId::fp16, 0).back().position, 0);
}

TEST(BitLayout, FlippingABitChangesThatBitOnly) {
    EXPECT_EQ(flip_bit(0x3c00u, 15), 0xbc00u);
    EXPECT_EQ(decode(FormatId::fp16, flip_bit(0x3c00u, 10)), 0.5f);  // lowest exponent bit
}

TEST(BitLayout, TextsForOneCast) {
    const BitLayout l = make_bit_layout(describe_cast(FormatId::fp16, 0.1f));
    EXPECT_EQ(l.format_label, "FP16");
    EXPECT_EQ(l.hex, "0x2e66");
    EXPECT_EQ(l.value, "0.099975586");
    EXPECT_EQ(l.value_class, "normal");
    EXPECT_EQ(l.ulp, "2^-14");
    EXPECT_EQ(l.note, "");
    EXPECT_EQ(make_bit_layout(describe_cast(FormatId::fp16, 70000.0f)).note, "overflow");
    EXPECT_EQ(make_bit_layout(describe_cast(FormatId::fp16, 70000.0f)).value, "+inf");
    EXPECT_EQ(make_bit_layout(describe_cast(FormatId::fp16, -70000.0f)).value, "-inf");
    EXPECT_EQ(make_bit_layout(describe_cast(FormatId::fp16, 1e-9f)).note, "flushed to zero");
    EXPECT_EQ(make_bit_layout(describe_cast(FormatId::e4m3, 448.0f)).next_up, "none");
}

}  // namespace
}  // namespace plab
