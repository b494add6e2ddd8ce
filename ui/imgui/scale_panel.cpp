#include "ui/imgui/scale_panel.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "ui/imgui/plot.h"
#include "ui/imgui/progress_bar.h"
#include "ui/present/scale_trajectory.h"

namespace plab::imgui {

namespace {

struct MarkerLook {
    MarkerShape shape;
    KeySymbol symbol;  // the same shape in the colour key
    ImU32 colour;
    double lift;  // in binades: an overflow sits above its backoff, which shares its step
};

MarkerLook marker_look(ScaleEventKind k) {
    switch (k) {
        case ScaleEventKind::overflow: return {MarkerShape::circle, KeySymbol::circle, colour::overflow, 0.45};
        case ScaleEventKind::backoff: return {MarkerShape::triangle_down, KeySymbol::triangle_down, colour::backoff, 0.0};
        case ScaleEventKind::growth: return {MarkerShape::triangle_up, KeySymbol::triangle_up, colour::growth, 0.0};
        case ScaleEventKind::edit: return {MarkerShape::diamond, KeySymbol::diamond, colour::edit, 0.0};
    }
    return {MarkerShape::square, KeySymbol::square, colour::text, 0.0};
}

KeyEntry key_of(const char* name, ScaleEventKind k) {
    const MarkerLook ml = marker_look(k);
    return {name, ml.colour, ml.symbol};
}

void growth_progress(const ScaleTrajectory& t) {
    if (t.growth_interval <= 0) {
        ImGui::TextDisabled("this scaler does not grow");
        return;
    }
    const int done = std::min(t.growth_tracker, t.growth_interval);
    const std::string text =
        std::to_string(done) + " / " + std::to_string(t.growth_interval) + " clean steps to the next growth";
    progress_bar(static_cast<float>(done) / static_cast<float>(t.growth_interval), text, colour::growth);
}

}  // namespace

void ScalePanel::draw(const SessionSnapshot& snapshot, const Look& look) {
    const RunView& run = snapshot.main;
    if (!run.config) return;
    const float line_h = ImGui::GetTextLineHeightWithSpacing();
    const float width = ImGui::GetContentRegionAvail().x;
    const int columns = line_columns(width, look);
    // A marker is about ten pixels wide: one marker column per eight pixels is all the eye can separate.
    const ScaleTrajectory t = make_scale_trajectory(run.log, *run.config, columns, marker_columns_for(width));
    const std::vector<KeyEntry> key = {{"scale", colour::amp},
                                       key_of(t.overflow_key.c_str(), ScaleEventKind::overflow),
                                       key_of("backoff", ScaleEventKind::backoff),
                                       key_of("growth", ScaleEventKind::growth),
                                       key_of("edit", ScaleEventKind::edit),
                                       {snapshot.record ? "what-if (replayed)" : "fork", colour::fork, KeySymbol::dashed_line}};
    // Room under the plot: summary, colour key, growth progress.
    const float below = line_h * static_cast<float>(1 + key_lines(key, width)) + ImGui::GetFrameHeightWithSpacing();
    std::optional<ScaleTrajectory> f;
    if (snapshot.fork && snapshot.fork->config)
        f = make_scale_trajectory(snapshot.fork->log, *snapshot.fork->config, columns, marker_columns_for(width));
    const ScaleAxes axes = scale_axes(t, f);
    const double step_max = axes.step_max;
    const double lo = axes.log2_min;
    const double hi = axes.log2_max + 0.5;  // room for overflow markers
    // Markers at the ends of the data stay whole inside the frame.
    const float pad = look.marker() * 1.5f + look.thin();

    ImGui::BeginChild("##scaleplot", {0, -below}, false);
    const PlotArea a = begin_plot("##scale", {0, 0}, {t.step_min, step_max, AxisKind::steps, look.step_title(), pad, pad},
                                  {lo, hi, AxisKind::log2, "loss scale", pad, pad}, look);
    column_line(a, t.line, colour::amp, look.line());
    // The fork's dashed line over the run's: where the two agree, the run's shows between its dashes.
    if (f) {
        dashed_polyline(a, f->line, colour::fork, look.line(), 8.0f * look.scale);
        // The fork's (or the what-if's) overflows, on its dashed line.
        for (const ScaleMarker& m : f->markers)
            if (m.kind == ScaleEventKind::overflow)
                marker(a, m.step, m.log2_scale, MarkerShape::circle, colour::fork, look.marker() * 0.8f);
    }
    const ScaleMarker* nearest = nullptr;
    float nearest_d = look.marker() * 2.5f;
    const ImVec2 mouse = ImGui::GetIO().MousePos;
    for (const ScaleMarker& m : t.markers) {
        const MarkerLook ml = marker_look(m.kind);
        marker(a, m.step, m.log2_scale + ml.lift, ml.shape, ml.colour, look.marker());
        const ImVec2 p = a.at(m.step, m.log2_scale + ml.lift);
        const float d = std::hypot(p.x - mouse.x, p.y - mouse.y);
        if (a.hovered() && d < nearest_d) {
            nearest = &m;
            nearest_d = d;
        }
    }
    end_plot(a);
    if (nearest) tooltip(nearest->text);
    ImGui::EndChild();

    // On a record the dashed line is its scaler replayed under the edited settings.
    const std::string summary = snapshot.record && f ? "recorded: " + t.summary + " — what-if: " + f->summary : t.summary;
    ImGui::TextUnformatted(summary.c_str());
    key_line(key);
    growth_progress(t);
}

}  // namespace plab::imgui
