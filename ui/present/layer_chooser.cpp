#include "ui/present/layer_chooser.h"

#include <algorithm>

#include "engine/train/preset_rules.h"
#include "ui/present/layer_blocks.h"
#include "ui/present/lower_case.h"

namespace plab {

namespace {

// Under its block's header a layer is named by the rest of its name.
constexpr std::string_view kIndent = "    ";

// Every block's layers, or every layer as a block of one when none is in a
// block (an MLP), so that one walk builds both lists.
std::vector<LayerBlock> blocks_or_layers(const std::vector<std::string>& names) {
    std::vector<LayerBlock> blocks = layer_blocks(names);
    if (!blocks.empty()) return blocks;
    for (std::size_t i = 0; i < names.size(); ++i) blocks.push_back({names[i], i, 1});
    return blocks;
}

void add_block(const std::vector<std::string>& names, const LayerBlock& block, const std::vector<std::size_t>& kept,
               LayerChooser& chooser) {
    // A layer outside every block ("head", "fc1") is its own entry, unheaded.
    if (block_of(names[block.first]).empty()) {
        chooser.entries.push_back({names[block.first], names[block.first], block.first, false});
        return;
    }
    chooser.entries.push_back({block.label, block.label, 0, true});
    for (std::size_t i : kept) {
        const std::string& name = names[i];
        chooser.entries.push_back({std::string(kIndent) + name.substr(block.label.size() + 1), name, i, false});
    }
}

}  // namespace

LayerChooser make_layer_chooser(const std::vector<std::string>& names, std::string_view filter, bool all_layers) {
    LayerChooser chooser;
    const std::string wanted = lower_case(filter);
    for (const LayerBlock& block : blocks_or_layers(names)) {
        std::vector<std::size_t> kept;
        for (std::size_t i = block.first; i < block.first + block.count; ++i)
            if (lower_case(names[i]).find(wanted) != std::string::npos) kept.push_back(i);
        if (kept.empty()) continue;
        add_block(names, block, kept, chooser);
        chooser.layers.insert(chooser.layers.end(), kept.begin(), kept.end());
    }
    if (chooser.layers.empty()) {
        if (!names.empty()) chooser.note = "no layer name contains \u201c" + std::string(filter) + "\u201d";
        return chooser;
    }
    if (all_layers) chooser.entries.push_back({"all layers", "all layers", kAllLayers, false});
    return chooser;
}

int chosen_entry(const LayerChooser& chooser, std::size_t want) {
    int last_layer = -1, all = -1;
    for (std::size_t i = 0; i < chooser.entries.size(); ++i) {
        const LayerEntry& e = chooser.entries[i];
        if (e.header) continue;
        if (e.layer == want) return static_cast<int>(i);
        (e.layer == kAllLayers ? all : last_layer) = static_cast<int>(i);
    }
    return last_layer >= 0 ? last_layer : all;
}

std::size_t output_layer(const std::vector<std::string>& names) {
    std::size_t last = names.size();
    while (last > 1 && is_table_layer(names[last - 1])) --last;
    return last == 0 ? 0 : last - 1;
}

std::size_t next_kept_layer(const LayerChooser& chooser, std::size_t layer) {
    if (chooser.layers.empty()) return layer;
    const auto next = std::upper_bound(chooser.layers.begin(), chooser.layers.end(), layer);
    return next == chooser.layers.end() ? chooser.layers.front() : *next;
}

}  // namespace plab
