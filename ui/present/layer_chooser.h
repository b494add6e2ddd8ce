#pragma once
// View model of a layer chooser (the histogram panels' layer box) at 30-60
// tensors: each transformer block's name as a header over its layers, the
// layers outside every block as entries of their own, then "all layers";
// narrowed by a filter text. An MLP's fc1, fc2, ... stay a flat list.
#include <cstddef>
#include <limits>
#include <string>
#include <string_view>
#include <vector>

namespace plab {

// What the "all layers" entry chooses: every layer the filter keeps.
inline constexpr std::size_t kAllLayers = std::numeric_limits<std::size_t>::max();

struct LayerEntry {
    std::string text;        // as the list shows it: "h0" (a header), "    attn.q" (under it), "head", "all layers"
    std::string name;        // as shown once chosen: "h0.attn.q", "all layers"; a header's the block's
    std::size_t layer = 0;   // what choosing it shows: the layer's index in the names, or kAllLayers
    bool header = false;     // a block's name over its layers; not choosable
    bool operator==(const LayerEntry&) const = default;
};

struct LayerChooser {
    std::vector<LayerEntry> entries;  // in the layers' order, "all layers" last
    std::vector<std::size_t> layers;  // the layers the filter keeps, in order: what "all layers" shows
    std::string note;  // why there are no entries ("no layer name contains “xyz”"); "" when there are
};

// The entries for `names` (the run's, RunView::layer_names) whose full name
// contains `filter`, ignoring case (an empty one keeps all): "h1" keeps
// block h1 (and h10..h19, whose names begin the same), "h1." block h1 alone,
// "attn" every attention tensor. A header stays while one of its layers
// does. `all_layers`: offer the "all layers" entry.
LayerChooser make_layer_chooser(const std::vector<std::string>& names, std::string_view filter,
                                bool all_layers = true);

// The entry to show chosen for `want` (a layer's index or kAllLayers): its
// own while the filter keeps it, else the last layer kept (the one nearest
// the loss, the default), else "all layers"; -1 when there are no entries.
int chosen_entry(const LayerChooser& chooser, std::size_t want);

// The layer a chooser shows first: the one nearest the loss, the last
// before the parameter tables ("wte", "wpe") that follow the matmul layers;
// 0 for no names.
std::size_t output_layer(const std::vector<std::string>& names);

// The first layer kept after `layer`, round to the first; `layer` when none is kept.
std::size_t next_kept_layer(const LayerChooser& chooser, std::size_t layer);

}  // namespace plab
