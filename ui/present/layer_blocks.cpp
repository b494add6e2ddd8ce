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

}  // namespace plab
