#pragma once
// A transformer's layers grouped by block: "h0.attn.q", "h0.mlp.fc", ... are
// block "h0". At 30-60 tensors a flat list of names is hard to read; the
// blocks label the divergence heat maps' rows and head the layer chooser.
#include <cstddef>
#include <string>
#include <vector>

namespace plab {

// Consecutive layers of one transformer block (layers first .. first + count - 1).
struct LayerBlock {
    std::string label;  // "h0"; a layer outside every block is its own: "head"
    std::size_t first = 0;
    std::size_t count = 0;
    bool operator==(const LayerBlock&) const = default;
};

// A layer's block: the part of its name before the first '.' ("h0" of
// "h0.attn.q"); empty for names without one ("fc1", "head").
std::string block_of(const std::string& name);

// Runs of consecutive layers in one block; a layer outside every block
// ("head") is a run of its own. Empty when no layer names a block (an MLP's
// fc1, fc2, ...).
std::vector<LayerBlock> layer_blocks(const std::vector<std::string>& names);

// layer_blocks with each run of consecutive layers outside every block
// joined into one, labelled by their names ("head, wpe": the head and the
// embedding tables after it): what the heat maps label, where one row's
// label would overlap the next one's.
std::vector<LayerBlock> row_label_blocks(const std::vector<std::string>& names);

}  // namespace plab
