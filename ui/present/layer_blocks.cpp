#include "ui/present/layer_blocks.h"

namespace plab {

std::string block_of(const std::string& name) {
    const std::size_t dot = name.find('.');
    return dot == std::string::npos ? std::string() : name.substr(0, dot);
}

std::vector<LayerBlock> layer_blocks(const std::vector<std::string>& names) {
    std::vector<LayerBlock> blocks;
    bool any = false;
    for (std::size_t i = 0; i < names.size(); ++i) {
        std::string block = block_of(names[i]);
        any = any || !block.empty();
        if (block.empty()) block = names[i];
        if (!blocks.empty() && blocks.back().label == block)
            ++blocks.back().count;
        else
            blocks.push_back({block, i, 1});
    }
    if (!any) blocks.clear();
    return blocks;
}

std::vector<LayerBlock> row_label_blocks(const std::vector<std::string>& names) {
    std::vector<LayerBlock> joined;
    const auto outside = [&](const LayerBlock& b) { return block_of(names[b.first]).empty(); };
    for (const LayerBlock& b : layer_blocks(names)) {
        if (!joined.empty() && outside(b) && outside(joined.back())) {
            joined.back().label += ", " + b.label;
            joined.back().count += b.count;
        } else {
            joined.push_back(b);
        }
    }
    return joined;
}

}  // namespace plab
