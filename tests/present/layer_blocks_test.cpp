// A transformer's layers grouped by block, a layer outside every block its
// own group, and no groups at all for an MLP.
#include <gtest/gtest.h>

#include <string>

#include "ui/present/layer_blocks.h"

namespace plab {
namespace {

TEST(LayerBlocks, ABlockIsTheNameBeforeTheFirstDot) {
    EXPECT_EQ(block_of("h12.attn.proj"), "h12");
    EXPECT_EQ(block_of("head"), "");
    EXPECT_EQ(block_of("fc1"), "");
}

TEST(LayerBlocks, ConsecutiveLayersOfABlockAreOneRunAndOthersRunsOfTheirOwn) {
    const std::vector<std::string> names = {"wte", "h0.attn.q", "h0.mlp.fc", "h1.attn.q", "head"};
    const std::vector<LayerBlock> want = {{"wte", 0, 1}, {"h0", 1, 2}, {"h1", 3, 1}, {"head", 4, 1}};
    EXPECT_EQ(layer_blocks(names), want);
}

// The head and the embedding tables after it (telemetry_layers.h) label one
// row each; joined, their label has the room of their rows together.
TEST(LayerBlocks, RowLabelsJoinTheLayersOutsideEveryBlockThatFollowEachOther) {
    const std::vector<std::string> names = {"h0.attn.q", "h0.mlp.fc", "h1.attn.q", "head", "wte", "wpe"};
    const std::vector<LayerBlock> want = {{"h0", 0, 2}, {"h1", 2, 1}, {"head, wte, wpe", 3, 3}};
    EXPECT_EQ(row_label_blocks(names), want);
    const std::vector<LayerBlock> apart = {{"wte", 0, 1}, {"h0", 1, 1}, {"head", 2, 1}};
    EXPECT_EQ(row_label_blocks({"wte", "h0.attn.q", "head"}), apart);
    EXPECT_TRUE(row_label_blocks({"fc1", "fc2"}).empty());
}

// An 8-block GPT: 6 rows a block, the head and wpe 2 rows together.
std::vector<LayerBlock> gpt_rows(int blocks) {
    std::vector<LayerBlock> rows;
    for (int b = 0; b < blocks; ++b) rows.push_back({"h" + std::to_string(b), static_cast<std::size_t>(6 * b), 6});
    rows.push_back({"head, wpe", static_cast<std::size_t>(6 * blocks), 2});
    return rows;
}

TEST(LayerBlocks, ThinRowsJoinBlocksUntilEachLabelHasItsRows) {
    // Room for a label every 6 rows: each block keeps its own, and the head's 2 rows join h7's.
    const std::vector<LayerBlock> six = labelled_row_groups(gpt_rows(8), 6);
    ASSERT_EQ(six.size(), 8u);
    EXPECT_EQ(six[0], (LayerBlock{"h0", 0, 6}));
    EXPECT_EQ(six[7], (LayerBlock{"h7\u2013wpe", 42, 8}));
    // Every 12 rows: blocks in pairs; the last pair takes the head and wpe.
    const std::vector<LayerBlock> twelve = labelled_row_groups(gpt_rows(8), 12);
    const std::vector<LayerBlock> want = {{"h0\u2013h1", 0, 12}, {"h2\u2013h3", 12, 12}, {"h4\u2013h5", 24, 12},
                                          {"h6\u2013wpe", 36, 14}};
    EXPECT_EQ(twelve, want);
    // Room enough: nothing joins, and the joined singles keep their label.
    EXPECT_EQ(labelled_row_groups(gpt_rows(2), 2), gpt_rows(2));
    EXPECT_EQ(labelled_row_groups(gpt_rows(2), 1), gpt_rows(2));
    // Everything in one label when the plot holds one.
    EXPECT_EQ(labelled_row_groups(gpt_rows(2), 100), (std::vector<LayerBlock>{{"h0\u2013wpe", 0, 14}}));
    EXPECT_TRUE(labelled_row_groups({}, 4).empty());
}

TEST(LayerBlocks, AnMlpHasNone) {
    EXPECT_TRUE(layer_blocks({"fc1", "fc2", "fc3"}).empty());
    EXPECT_TRUE(layer_blocks({}).empty());
}

}  // namespace
}  // namespace plab
