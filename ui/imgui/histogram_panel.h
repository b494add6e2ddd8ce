#pragma once
// Gradient histograms against the FP16/BF16/E4M3/E5M2 bands: one layer's
// log2 |x| histogram (ui/present/histogram_view), scaled or unscaled, with
// each chosen format's flush-to-zero, subnormal and overflow ranges shaded,
// and the per-format counters under it. A click on a bar shows its lower
// edge in the bit layout panel.
#include "ui/imgui/panel.h"
#include "ui/present/histogram_view.h"

namespace plab::imgui {

class HistogramPanel {
public:
    void draw(const SessionSnapshot& snapshot, const Look& look, const LiveContext& context);
    void toggle_unscaled() { unscaled_ = !unscaled_; }
    void next_layer() { ++layer_; }  // wraps round in draw()

private:
    void draw_controls(const std::vector<std::string>& names);
    void draw_plot(const HistogramView& view, const Look& look, const LiveContext& context);
    void draw_counters(const LayerRecord& layer, HistTensor tensor);
    std::vector<FormatId> chosen() const;

    bool unscaled_ = false;
    int layer_ = -1;   // -1: the last layer (the one nearest the loss)
    int tensor_ = 1;   // HistTensor::grad
    bool bands_[4] = {true, true, false, false};  // kRangeFormats: FP16, BF16 on
    std::string caption_;
};

}  // namespace plab::imgui
