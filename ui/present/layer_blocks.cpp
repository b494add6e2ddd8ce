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

namespace {

// "head" of "head, wpe" (front) or "wpe" (back): a joined label's ends.
std::string label_end(const std::string& label, bool front) {
    const std::size_t comma = front ? label.find(", ") : label.rfind(", ");
    if (comma == std::string::npos) return label;
    return front ? label.substr(0, comma) : label.substr(comma + 2);
}

}  // namespace

std::vector<LayerBlock> labelled_row_groups(const std::vector<LayerBlock>& blocks, std::size_t min_rows) {
    struct Run {
        LayerBlock block;
        std::string first, last;  // the labels of the first and last blocks it joins
    };
    std::vector<Run> runs;  // blocks are consecutive: a run grows by their counts
    for (const LayerBlock& b : blocks) {
        if (runs.empty() || runs.back().block.count >= min_rows) {
            runs.push_back({b, b.label, b.label});
            continue;
        }
        runs.back().block.count += b.count;
        runs.back().last = b.label;
    }
    if (runs.size() > 1 && runs.back().block.count < min_rows) {
        Run& before = runs[runs.size() - 2];
        before.block.count += runs.back().block.count;
        before.last = runs.back().last;
        runs.pop_back();
    }
    std::vector<LayerBlock> groups;
    for (Run& run : runs) {
        if (run.first != run.last) run.block.label = label_end(run.first, true) + "\u2013" + label_end(run.last, false);
        groups.push_back(std::move(run.block));
    }
    return groups;
}

}  // namespace plab
