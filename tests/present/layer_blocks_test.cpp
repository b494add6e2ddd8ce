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

TEST(LayerBlocks, AnMlpHasNone) {
    EXPECT_TRUE(layer_blocks({"fc1", "fc2", "fc3"}).empty());
    EXPECT_TRUE(layer_blocks({}).empty());
}

}  // namespace
}  // namespace plab
