// A transformer's layers grouped by block, a layer outside every block its
// own group, and no groups at all for an MLP.
#include <gtest/gtest.h>

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

TEST(LayerBlocks, AnMlpHasNone) {
    EXPECT_TRUE(layer_blocks({"fc1", "fc2", "fc3"}).empty());
    EXPECT_TRUE(layer_blocks({}).empty());
}

}  // namespace
}  // namespace plab
