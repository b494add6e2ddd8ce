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

// `blocks` (row_label_blocks) joined further where a plot's rows are too thin
// for one label a block: consecutive blocks join until each run spans
// `min_rows` rows or more (a label's height), and a short last run joins
// the one before it. A joined run is labelled by its first and last names
// ("h0–h1", "h7–wpe"); the tooltip still names each layer. With 50 rows
// (8 GPT blocks, the head and wpe) in a plot 170 pixels tall, a label a
// block would be elided to "...".
std::vector<LayerBlock> labelled_row_groups(const std::vector<LayerBlock>& blocks, std::size_t min_rows);

}  // namespace plab
