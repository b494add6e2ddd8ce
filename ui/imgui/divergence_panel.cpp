#include "ui/present/record_notes.h"
#include "ui/imgui/divergence_panel.h"

#include <algorithm>
#include <cmath>

#include "ui/imgui/plot.h"
#include "ui/present/divergence_view.h"

namespace plab::imgui {

void DivergencePanel::draw(const SessionSnapshot& snapshot, const Look& look) {
    const RunView& run = snapshot.main;
    if (!run.config) return;
    const float full_w = ImGui::GetContentRegionAvail().x;
    const float gap = ImGui::GetStyle().ItemSpacing.x;
    const float half_w = (full_w - gap) * 0.5f;
    const DivergenceView v = make_divergence_view(run.log, run.config->twin, line_columns(half_w, look), run.layer_names);
    if (v.layers.empty()) {
        const bool untwinned_record = snapshot.record && !run.config->twin;
        wrapped_text(untwinned_record ? record_gap_text(RecordGap::twin, *snapshot.record) : v.summary, colour::dim_text);
        return;
    }
    // Under the plots: the layers' key and the summary, which may wrap.
    const float below = ImGui::GetTextLineHeightWithSpacing() + ImGui::CalcTextSize(v.summary.c_str(), nullptr, false, full_w).y +
                        ImGui::GetStyle().ItemSpacing.y * 2;
    const float plot_h = ImGui::GetContentRegionAvail().y - below;
    // Distance on a log axis, drawn in decades; a distance of exactly 0 is at the bottom edge.
    {
        const PlotArea a = begin_plot("##dist", {half_w, plot_h}, {v.step_min, v.step_max, AxisKind::steps, look.step_title()},
                                      {std::log10(v.rel_dist_min), std::log10(v.rel_dist_max), AxisKind::log10,
                                       "weight distance to twin"},
                                      look);
        for (std::size_t i = 0; i < v.layers.size(); ++i) {
            column_line(a, log10_points(v.layers[i].rel_dist), layer_colour(i), look.thin() * 1.5f);
        }
        end_plot(a);
    }
    ImGui::SameLine(0, gap);
    {
        const PlotArea a = begin_plot("##cos", {half_w, plot_h}, {v.step_min, v.step_max, AxisKind::steps, look.step_title()},
                                      {v.cos_min, v.cos_max, AxisKind::linear, "grad cosine with twin"}, look);
        for (std::size_t i = 0; i < v.layers.size(); ++i) column_line(a, v.layers[i].grad_cos, layer_colour(i), look.thin() * 1.5f);
        end_plot(a);
    }
    std::vector<KeyEntry> key;
    for (std::size_t i = 0; i < v.layers.size(); ++i) key.push_back({v.layers[i].name.c_str(), layer_colour(i)});
    key_line(key);
    ImGui::PushTextWrapPos(0);
    ImGui::TextUnformatted(v.summary.c_str());
    ImGui::PopTextWrapPos();
}

}  // namespace plab::imgui
