#include "ui/imgui/loss_panel.h"

#include <algorithm>
#include <cmath>
#include <optional>

#include "ui/imgui/plot.h"
#include "ui/present/fork_summary.h"
#include "ui/present/loss_curves.h"

namespace plab::imgui {

namespace {

// Losses the log axis cannot show, at its edges where each run of them
// begins: NaN and Inf at the top in the colour of non-finite values, 0 at
// the bottom in the run's colour; the twin's a row further in and the
// fork's another, so that every run's marks show at one step.
void draw_marks(const PlotArea& a, const std::vector<LossMark>& marks, const Look& look) {
    const float h = look.marker();
    for (const LossMark& m : marks) {
        const float row = h * 2.6f * (m.fork ? 2.0f : m.twin ? 1.0f : 0.0f);
        if (m.top)
            draw_marker(a.draw, {a.px(m.x), a.min.y + h * 1.5f + row}, MarkerShape::diamond, colour::overflow, h);
        else
            draw_marker(a.draw, {a.px(m.x), a.max.y - h * 1.3f - row}, MarkerShape::triangle_down,
                        m.fork ? colour::fork : m.twin ? colour::twin : colour::amp, h);
    }
}

bool has_test(const LossCurves& c) {
    return std::any_of(c.loss.begin(), c.loss.end(), [](const Curve& k) { return k.test && !k.points.empty(); });
}

bool has_mark(const std::vector<LossMark>& marks, bool top) {
    return std::any_of(marks.begin(), marks.end(), [top](const LossMark& m) { return m.top == top; });
}

}  // namespace

void LossPanel::draw(const SessionSnapshot& snapshot, const Look& look) {
    const RunView& run = snapshot.main;
    if (!run.config) return;
    const bool twin = run.config->twin;
    const float line_h = ImGui::GetTextLineHeightWithSpacing();
    // A record's fork is its scaler replayed under other settings: it has no loss.
    const RunView* fork = snapshot.record ? nullptr : (snapshot.fork ? &*snapshot.fork : nullptr);
    const float below = line_h * (fork ? 3 : 2);
    const int columns = line_columns(ImGui::GetContentRegionAvail().x, look);
    const LossCurves c = make_loss_curves(run.log, twin, columns, run.config->model.kind == ModelKind::gpt);
    std::optional<LossCurves> f;
    if (fork) f = make_loss_curves(fork->log, false, columns);
    const LossAxes axes = loss_axes(c, f);
    const double lo = axes.loss_min, hi = axes.loss_max, step_max = axes.step_max;
    ImGui::BeginChild("##lossplot", {0, -below}, false);
    const PlotArea a = begin_plot("##loss", {0, 0}, {c.step_min, step_max, AxisKind::steps, look.step_title()},
                                  {std::log10(lo), std::log10(hi), AxisKind::log10, "loss (log)"}, look);
    // The twin's curves first so that the AMP run's are drawn over them: where
    // the two agree, the AMP colour shows.
    for (bool draw_twin : {true, false}) {
        for (const Curve& curve : c.loss) {
            if (curve.twin != draw_twin) continue;
            const ImU32 col = curve.twin ? colour::twin : colour::amp;
            if (curve.test)
                dashed_polyline(a, log10_points(curve.points), col, look.line() * 1.2f, 6.0f * look.scale);
            else
                column_line(a, log10_points(curve.points), col, look.thin() * 1.5f);
        }
    }
    if (f && !f->loss.empty()) column_line(a, log10_points(f->loss.front().points), colour::fork, look.thin() * 1.5f);
    const std::vector<LossMark> marks = f ? marks_with_fork(c.marks, f->marks) : c.marks;
    draw_marks(a, marks, look);
    end_plot(a);
    ImGui::EndChild();
    std::vector<KeyEntry> key = {{"AMP train", colour::amp}};
    if (twin) key.push_back({"FP32 twin", colour::twin});
    if (f) key.push_back({"fork", colour::fork});
    if (has_mark(marks, true)) key.push_back({"NaN/Inf loss", colour::overflow, KeySymbol::diamond});
    if (has_mark(marks, false)) key.push_back({"loss 0 (bottom)", colour::dim_text, KeySymbol::triangle_down});
    if (has_test(c)) key.push_back({"test", colour::dim_text, KeySymbol::dashed_line});
    key_line(key);
    ImGui::TextUnformatted(c.summary.c_str());
    if (fork) {
        ImGui::PushStyleColor(ImGuiCol_Text, colour::fork);
        ImGui::TextUnformatted(fork_summary(snapshot).c_str());
        ImGui::PopStyleColor();
    }
}

}  // namespace plab::imgui
