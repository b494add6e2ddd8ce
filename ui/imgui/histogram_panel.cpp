#include "ui/imgui/histogram_panel.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>

#include "engine/common/number_text.h"
#include "ui/imgui/plot.h"

namespace plab::imgui {

namespace {

const char* const kTensorNames[] = {"weights", "weight grads", "activations", "activation grads"};

// Flush-to-zero and overflow ranges a solid tint, subnormal crossed by lines
// only: where values are lost outright stands out from where they only lose
// precision, and both from the normal range; the bars, drawn over them
// opaque, stay readable on all three. (A pale tint under the lines added
// covered pixels to every frame and nothing the lines do not already say.)
// Under llvmpipe a long thin line costs by its length: the lines 11 pixels
// apart rather than 7, a little brighter, read as well for a good deal less
// (docs/perf.md).
constexpr int kLostAlpha = 90;
constexpr int kHatchAlpha = 140;
constexpr float kHatchSpacing = 11.0f;
constexpr int kEdgeAlpha = 200;

std::string percent(double p) {
    if (p == 0) return "0";
    char buf[32];
    std::snprintf(buf, sizeof buf, p < 0.1 ? "%.2f%%" : "%.1f%%", p);
    return buf;
}

}  // namespace

std::vector<FormatId> HistogramPanel::chosen() const {
    std::vector<FormatId> out;
    for (std::size_t i = 0; i < kRangeFormats.size(); ++i)
        if (bands_[i]) out.push_back(kRangeFormats[i]);
    return out;
}

// Made again only when the names or the filter change, not every frame; a
// new run's layers start again from the last.
void HistogramPanel::update_chooser(const std::vector<std::string>& names) {
    if (names == chooser_names_ && chooser_filter_ == filter_) return;
    if (names != chooser_names_) want_.reset();
    chooser_names_ = names;
    chooser_filter_ = filter_;
    chooser_ = make_layer_chooser(names, chooser_filter_, false);  // no "all layers" view here
}

// Block names dimmed over their indented layers; the chosen layer by its full name.
void HistogramPanel::draw_layer_chooser(int entry) {
    const float h = ImGui::GetTextLineHeight();
    ImGui::SetNextItemWidth(h * 7.0f);  // "h11.attn.proj"
    const char* preview = entry < 0 ? "-" : chooser_.entries[static_cast<std::size_t>(entry)].name.c_str();
    if (ImGui::BeginCombo("##layer", preview, ImGuiComboFlags_HeightLarge)) {
        for (std::size_t i = 0; i < chooser_.entries.size(); ++i) {
            const LayerEntry& e = chooser_.entries[i];
            if (e.header) {
                ImGui::TextDisabled("%s", e.text.c_str());
                continue;
            }
            ImGui::PushID(static_cast<int>(i));  // "attn.q" is in every block
            if (ImGui::Selectable(e.text.c_str(), static_cast<int>(i) == entry)) want_ = e.layer;
            ImGui::PopID();
        }
        ImGui::EndCombo();
    }
    ImGui::SameLine();
    ImGui::SetNextItemWidth(h * 5.0f);
    ImGui::InputTextWithHint("##filter", "filter", filter_, sizeof filter_);
}

void HistogramPanel::draw_controls(int entry) {
    const float h = ImGui::GetTextLineHeight();
    draw_layer_chooser(entry);
    ImGui::SameLine();
    ImGui::SetNextItemWidth(h * 9.0f);
    ImGui::Combo("##tensor", &tensor_, kTensorNames, static_cast<int>(std::size(kTensorNames)));
    ImGui::SameLine();
    ImGui::Checkbox("unscaled (U)", &unscaled_);
    ImGui::TextDisabled("bands:");
    for (std::size_t i = 0; i < kRangeFormats.size(); ++i) {
        ImGui::SameLine();
        ImGui::PushStyleColor(ImGuiCol_Text, band_colour(kRangeFormats[i]));
        ImGui::Checkbox(std::string(format_display_name(kRangeFormats[i])).c_str(), &bands_[i]);
        ImGui::PopStyleColor();
    }
}

void HistogramPanel::draw(const SessionSnapshot& snapshot, const Look& look, const LiveContext& context) {
    if (!snapshot.main.config) return;
    const std::vector<std::string>& names = snapshot.main.layer_names;
    update_chooser(names);
    const int entry = names.empty() ? -1 : chosen_entry(chooser_, want_.value_or(output_layer(names)));
    draw_controls(entry);
    if (!chooser_.note.empty()) {  // the filter keeps no layer
        wrapped_text(chooser_.note, colour::dim_text);
        return;
    }
    const std::shared_ptr<const StepRecord> record = histogram_record(snapshot.main.log);
    shown_ = entry < 0 ? 0 : chooser_.entries[static_cast<std::size_t>(entry)].layer;
    const std::size_t l = shown_;
    if (entry < 0 || !record || l >= record->histograms->size() || l >= names.size()) {
        const int every = snapshot.main.config->telemetry.hist_every;
        wrapped_text(no_histogram_text(std::nullopt, std::nullopt, 0, every), colour::dim_text);
        return;
    }
    const auto tensor = static_cast<HistTensor>(tensor_);
    const std::vector<FormatId> formats = chosen();
    const TwinView* twin = record->twin_view.get();
    const bool with_twin = twin && l < twin->histograms.size();
    const HistogramView view = make_histogram_view((*record->histograms)[l], names[l], tensor, unscaled_, record->scale,
                                                   formats, with_twin ? &twin->histograms[l] : nullptr);
    // What the plot shows goes under its x axis: a line of text saved for the plot.
    caption_ = "|x| in binades: " + view.title + " at step " + std::to_string(record->step) + ", loss scale " +
               power_of_two_text(record->scale);
    if (view.shift_log2 != 0) caption_ += ", shifted " + shortest_text(view.shift_log2) + " binades left";
    if (!view.ghost.empty()) caption_ += "; dashed: the FP32 twin's";
    const float counters_h = ImGui::GetFrameHeightWithSpacing() * static_cast<float>(formats.size() + 1) +
                             ImGui::GetStyle().ItemSpacing.y;
    ImGui::BeginChild("##plot", {0, -counters_h}, false);
    draw_plot(view, look, context);
    ImGui::EndChild();
    if (l < record->layers.size() && layer_holds(record->layers[l], tensor)) draw_counters(record->layers[l], with_twin ? &twin->layers[l] : nullptr, tensor);
}

void HistogramPanel::draw_plot(const HistogramView& view, const Look& look, const LiveContext& context) {
    // A strip above the bars for the bands' labels, a line per format.
    const float labels_h = ImGui::GetTextLineHeight() * static_cast<float>(view.bands.size()) + 4.0f * look.scale;
    Axis y{0, view.y_max, AxisKind::linear, "fraction of values"};
    y.pad_hi = labels_h;
    const PlotArea a =
        begin_plot("##hist", {0, 0}, {view.x_min, view.x_max, AxisKind::log2, caption_.c_str()}, y, look);
    const auto say_empty = [&] {  // all NaN, Inf or zero
        const ImVec2 size = ImGui::CalcTextSize(view.empty_note.c_str());
        const ImVec2 at{(a.min.x + a.max.x - size.x) * 0.5f, (a.min.y + a.max.y - size.y) * 0.5f};
        a.draw->AddRectFilled({at.x - 3, at.y - 1}, {at.x + size.x + 3, at.y + size.y + 1}, with_alpha(colour::background, 215));
        a.draw->AddText(at, colour::text, view.empty_note.c_str());
    };
    if (view.bars.empty() && view.ghost.empty()) {  // say so instead of a field of bands
        say_empty();
        end_plot(a);
        return;
    }
    for (const FormatBand& b : view.bands) {
        const ImU32 c = band_colour(b.format);
        x_band(a, view.x_min, b.log2_nonzero, with_alpha(c, kLostAlpha));
        hatched_x_band(a, b.log2_nonzero, b.log2_normal, with_alpha(c, kHatchAlpha), kHatchSpacing * look.scale, look.thin());
        x_band(a, b.log2_overflow, view.x_max, with_alpha(c, kLostAlpha));
        for (double edge : {b.log2_nonzero, b.log2_normal, b.log2_overflow})
            a.draw->AddLine({a.px(edge), a.min.y}, {a.px(edge), a.max.y}, with_alpha(c, kEdgeAlpha), look.thin());
    }
    const HistBar* hovered = nullptr;
    const double mouse_x = a.x_at(ImGui::GetIO().MousePos.x);
    for (const HistBar& b : view.bars) {
        const bool over = a.hovered() && mouse_x >= b.log2_lo && mouse_x < b.log2_hi;
        if (over) hovered = &b;
        bar(a, b.log2_lo, b.log2_hi, b.fraction, over ? colour::edit : colour::amp);
    }
    // The twin's values over the bars: where a band flushed the run's, their true mass still shows.
    std::vector<XY> ghost;
    for (const HistBar& b : view.ghost) {
        ghost.push_back({b.log2_lo, b.fraction});
        ghost.push_back({b.log2_hi, b.fraction});
    }
    dashed_polyline(a, ghost, colour::twin, look.thin() * 1.5f, 5.0f * look.scale);
    if (!view.empty_note.empty()) say_empty();
    // The formats' names inside the range they keep, pointing at where the
    // values they lose begin.
    float label_y = a.min.y + 2;
    for (const FormatBand& b : view.bands) {
        const std::string name = std::string(format_display_name(b.format));
        const float left = a.px(b.log2_nonzero) + 3, right = a.px(b.log2_overflow) - 3;
        // The long labels where they fit between the edges, else the names alone.
        for (const auto& [flush, over] : {std::pair{"\u2190 " + name + " flushes to 0", name + " overflows \u2192"},
                                          std::pair{"\u2190" + name, name + "\u2192"}}) {
            const float flush_w = ImGui::CalcTextSize(flush.c_str()).x, over_w = ImGui::CalcTextSize(over.c_str()).x;
            if (left + flush_w + ImGui::GetTextLineHeight() > right - over_w) continue;
            a.draw->AddText({left, label_y}, band_colour(b.format), flush.c_str());
            a.draw->AddText({right - over_w, label_y}, band_colour(b.format), over.c_str());
            break;
        }
        label_y += ImGui::GetTextLineHeight();
    }
    end_plot(a);
    if (!hovered) return;
    std::string tip = bar_tooltip(*hovered) + "\nlower edge:";
    for (const FormatBand& b : view.bands) tip += "\n  " + bar_edge_bits(*hovered, b.format);
    tooltip(tip + "\nclick: the edge in the bit layout panel");
    if (ImGui::IsMouseClicked(ImGuiMouseButton_Left)) context.inspect(static_cast<float>(std::exp2(hovered->log2_lo)));
}

void HistogramPanel::draw_counters(const LayerRecord& layer, const LayerRecord* twin, HistTensor tensor) {
    const TensorStats& s = pick_stats(layer, tensor, unscaled_);
    const TensorStats* twin_stats = twin ? &pick_stats(*twin, tensor, unscaled_) : nullptr;
    const std::vector<FormatId> formats = chosen();
    if (formats.empty()) return;
    // Columns share the width by what they hold (header or "100.0%"), so
    // "subnormal" and "overflow" keep their whole names at any font size.
    constexpr ImGuiTableFlags flags = ImGuiTableFlags_BordersInnerV | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchProp;
    if (!ImGui::BeginTable("##counters", 8, flags)) return;
    const float value_w = ImGui::CalcTextSize("100.0%").x;
    for (const char* h : {"format", "zero", "flush", "twin flush", "subnormal", "overflow", "NaN", "Inf"})
        ImGui::TableSetupColumn(h, ImGuiTableColumnFlags_None, std::max(value_w, ImGui::CalcTextSize(h).x));
    ImGui::TableHeadersRow();
    for (FormatId f : formats) {
        const HistCounters c = make_hist_counters(s, f, twin_stats);
        ImGui::TableNextRow();
        ImGui::TableNextColumn();
        ImGui::TextColored(to_vec4(band_colour(f)), "%s", std::string(format_display_name(f)).c_str());
        const std::string texts[] = {percent(c.zero),      percent(c.underflow),
                                     c.twin_flush ? percent(*c.twin_flush) : "\u2013",
                                     percent(c.subnormal), percent(c.overflow),
                                     percent(c.nan),       percent(c.inf)};
        for (const std::string& text : texts) {
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(text.c_str());
        }
    }
    ImGui::EndTable();
}

}  // namespace plab::imgui
