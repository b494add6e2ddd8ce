#pragma once
// Gradient histograms against the FP16/BF16/E4M3/E5M2 bands: one layer's
// log2 |x| histogram (ui/present/histogram_view), scaled or unscaled, with
// each chosen format's flush-to-zero, subnormal and overflow ranges shaded,
// the FP32 twin's histogram as a dashed outline over the bars, and the
// per-format counters under it (the twin's flush share among them). A click on a bar shows its lower
// edge in the bit layout panel. The layer chooser groups a transformer's
// tensors by block and a filter narrows it (ui/present/layer_chooser).
#include <optional>

#include "ui/imgui/panel.h"
#include "ui/present/histogram_view.h"
#include "ui/present/layer_chooser.h"

namespace plab::imgui {

class HistogramPanel {
public:
    void draw(const SessionSnapshot& snapshot, const Look& look, const LiveContext& context);
    void toggle_unscaled() { unscaled_ = !unscaled_; }
    void next_layer() { want_ = next_kept_layer(chooser_, shown_); }  // among those the filter keeps

private:
    void update_chooser(const std::vector<std::string>& names);
    void draw_controls(int entry);
    void draw_layer_chooser(int entry);
    void draw_plot(const HistogramView& view, const Look& look, const LiveContext& context);
    // `twin`: the FP32 twin's statistics of the layer (TwinView), or null.
    void draw_counters(const LayerRecord& layer, const LayerRecord* twin, HistTensor tensor);
    std::vector<FormatId> chosen() const;

    bool unscaled_ = false;
    std::optional<std::size_t> want_;  // the layer last chosen; none: the last layer (the one nearest the loss)
    std::size_t shown_ = 0;            // the layer the chooser shows chosen
    char filter_[64] = {};
    std::string chooser_filter_;             // what chooser_ was made for
    std::vector<std::string> chooser_names_;
    LayerChooser chooser_;
    int tensor_ = 1;   // HistTensor::grad
    bool bands_[4] = {true, true, false, false};  // kRangeFormats: FP16, BF16 on
    std::string caption_;
};

}  // namespace plab::imgui
