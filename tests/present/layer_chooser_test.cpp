// The layer chooser at transformer scale: block headers over their layers,
// layers outside every block on their own, "all layers" last; a filter that
// ignores case; an MLP's flat list; which entry shows chosen.
#include <gtest/gtest.h>

#include "ui/present/layer_chooser.h"

namespace plab {
namespace {

// The tiny GPT's layer names with two blocks (engine/model/tiny_gpt.cpp).
const std::vector<std::string> kGpt = {"h0.attn.q", "h0.attn.k", "h0.attn.v", "h0.attn.proj", "h0.mlp.fc",
                                       "h0.mlp.proj", "h1.attn.q", "h1.attn.k", "h1.attn.v", "h1.attn.proj",
                                       "h1.mlp.fc", "h1.mlp.proj", "head"};

LayerEntry header(const std::string& block) { return {block, block, 0, true}; }
LayerEntry layer(const std::string& text, const std::string& name, std::size_t i) { return {text, name, i, false}; }
const LayerEntry kAll = {"all layers", "all layers", kAllLayers, false};

// A block's header over its six tensors, indented and named by their part; `first` is h<n>.attn.q's index.
std::vector<LayerEntry> block_entries(const std::string& block, std::size_t first) {
    std::vector<LayerEntry> entries{header(block)};
    for (const char* part : {"attn.q", "attn.k", "attn.v", "attn.proj", "mlp.fc", "mlp.proj"})
        entries.push_back(layer(std::string("    ") + part, block + "." + part, first++));
    return entries;
}

TEST(LayerChooser, BlocksHeadTheirLayersAndTheHeadStandsAlone) {
    const LayerChooser c = make_layer_chooser(kGpt, "");
    std::vector<LayerEntry> want = block_entries("h0", 0);
    for (const LayerEntry& e : block_entries("h1", 6)) want.push_back(e);
    want.push_back(layer("head", "head", 12));
    want.push_back(kAll);
    ASSERT_EQ(c.entries.size(), 16u);
    EXPECT_EQ(c.entries, want);
    EXPECT_EQ(c.entries[4], layer("    attn.proj", "h0.attn.proj", 3));
    EXPECT_EQ(c.layers, (std::vector<std::size_t>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}));
    EXPECT_EQ(c.note, "");
}

TEST(LayerChooser, ABlocksNameKeepsItsWholeBlock) {
    const LayerChooser c = make_layer_chooser(kGpt, "H1");
    std::vector<LayerEntry> want = block_entries("h1", 6);
    want.push_back(kAll);
    EXPECT_EQ(c.entries, want);
    EXPECT_EQ(c.layers, (std::vector<std::size_t>{6, 7, 8, 9, 10, 11}));
}

TEST(LayerChooser, APartOfANameKeepsThoseLayersUnderTheirHeaders) {
    const LayerChooser c = make_layer_chooser(kGpt, "Attn.p");
    const std::vector<LayerEntry> want = {header("h0"), layer("    attn.proj", "h0.attn.proj", 3), header("h1"),
                                          layer("    attn.proj", "h1.attn.proj", 9), kAll};
    EXPECT_EQ(c.entries, want);
    EXPECT_EQ(make_layer_chooser(kGpt, "attn").layers, (std::vector<std::size_t>{0, 1, 2, 3, 6, 7, 8, 9}));
}

TEST(LayerChooser, ALayerOutsideEveryBlockMatchesAlone) {
    const std::vector<LayerEntry> want = {layer("head", "head", 12), kAll};
    EXPECT_EQ(make_layer_chooser(kGpt, "hea").entries, want);
}

TEST(LayerChooser, NothingMatchingLeavesNoEntriesAndSaysWhy) {
    const LayerChooser c = make_layer_chooser(kGpt, "xyz");
    EXPECT_TRUE(c.entries.empty());
    EXPECT_TRUE(c.layers.empty());
    EXPECT_EQ(c.note, "no layer name contains \u201cxyz\u201d");
    EXPECT_EQ(make_layer_chooser({}, "").note, "");  // no layers yet: nothing to say
}

TEST(LayerChooser, AnMlpIsAFlatListWithoutHeaders) {
    const std::vector<LayerEntry> want = {layer("fc1", "fc1", 0), layer("fc2", "fc2", 1), layer("fc3", "fc3", 2),
                                          kAll};
    EXPECT_EQ(make_layer_chooser({"fc1", "fc2", "fc3"}, "").entries, want);
    const std::vector<LayerEntry> second = {layer("fc2", "fc2", 1)};
    EXPECT_EQ(make_layer_chooser({"fc1", "fc2", "fc3"}, "2", false).entries, second);
}

TEST(LayerChooser, TheWantedLayerShowsChosenWhileKeptElseTheLastLayerKept) {
    const LayerChooser all = make_layer_chooser(kGpt, "");
    EXPECT_EQ(chosen_entry(all, 12), 14);  // head, the default
    EXPECT_EQ(chosen_entry(all, 6), 8);    // h1.attn.q, under the second header
    EXPECT_EQ(chosen_entry(all, kAllLayers), 15);
    const LayerChooser h0 = make_layer_chooser(kGpt, "h0.");
    EXPECT_EQ(chosen_entry(h0, 12), 6);  // head filtered out: h0.mlp.proj, the last kept
    EXPECT_EQ(chosen_entry(h0, kAllLayers), 7);
    EXPECT_EQ(chosen_entry(make_layer_chooser(kGpt, "h1", false), kAllLayers), 6);  // no such entry: h1.mlp.proj
    EXPECT_EQ(chosen_entry(make_layer_chooser(kGpt, "xyz"), 12), -1);
}

// The embedding tables follow the matmul layers (telemetry_layers.h): each an
// entry of its own after "head", and "head" stays what shows first.
TEST(LayerChooser, TheTablesStandAloneAfterTheHeadWhichStaysTheDefault) {
    std::vector<std::string> names = kGpt;
    names.insert(names.end(), {"wte", "wpe"});
    const LayerChooser c = make_layer_chooser(names, "");
    ASSERT_EQ(c.entries.size(), 18u);
    EXPECT_EQ(c.entries[14], layer("head", "head", 12));
    EXPECT_EQ(c.entries[15], layer("wte", "wte", 13));
    EXPECT_EQ(c.entries[16], layer("wpe", "wpe", 14));
    EXPECT_EQ(c.entries[17], kAll);
    EXPECT_EQ(output_layer(names), 12u);
    EXPECT_EQ(output_layer(kGpt), 12u);
    EXPECT_EQ(output_layer({"fc1", "fc2"}), 1u);
    EXPECT_EQ(output_layer({}), 0u);
}

TEST(LayerChooser, TheNextLayerIsTheNextKeptRoundToTheFirst) {
    const LayerChooser attn = make_layer_chooser(kGpt, "attn.q");
    EXPECT_EQ(next_kept_layer(attn, 0), 6u);
    EXPECT_EQ(next_kept_layer(attn, 6), 0u);
    EXPECT_EQ(next_kept_layer(attn, 12), 0u);  // from a layer the filter hides
    EXPECT_EQ(next_kept_layer(make_layer_chooser(kGpt, "xyz"), 5), 5u);
}

}  // namespace
}  // namespace plab
