#include "ui/present/record_notes.h"
#include "ui/imgui/nan_panel.h"

#include "ui/imgui/plot.h"
#include "ui/present/fork_summary.h"
#include "ui/present/nan_diagnosis.h"

namespace plab::imgui {

namespace {

// A full-width button that wraps its label, for remedies longer than the panel.
bool wide_button(const std::string& label) {
    const float width = ImGui::GetContentRegionAvail().x;
    const ImVec2 text = ImGui::CalcTextSize(label.c_str(), nullptr, false, width - ImGui::GetStyle().FramePadding.x * 2);
    const ImVec2 size = {width, text.y + ImGui::GetStyle().FramePadding.y * 2};
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const bool pressed = ImGui::Button(("##" + label).c_str(), size);
    ImGui::GetWindowDrawList()->AddText(nullptr, 0.0f,
                                        {at.x + ImGui::GetStyle().FramePadding.x, at.y + ImGui::GetStyle().FramePadding.y},
                                        colour::text, label.c_str(), nullptr, width - ImGui::GetStyle().FramePadding.x * 2);
    return pressed;
}

}  // namespace

void NanPanel::draw(const SessionSnapshot& snapshot, const Look& look, const LiveContext& context) {
    const RunView& run = snapshot.main;
    if (!run.config) return;
    const NanDiagnosis d = diagnose_first_nonfinite(run.log, *run.config, run.layer_names,
                                                    snapshot.trace ? &*snapshot.trace : nullptr);
    if (context.trace && trace_asker_.should_ask(d, TraceAsker::Clock::now())) context.trace(d.step);
    if (look.heading) ImGui::PushFont(look.heading);
    wrapped_text(d.headline, d.found ? colour::overflow : colour::growth);
    if (look.heading) ImGui::PopFont();
    if (!d.traced.empty()) wrapped_text(d.traced, colour::text);
    wrapped_text(d.detail, colour::text);
    if (d.found && snapshot.record) {  // listed, not offered: there is no run to fork
        for (const Remedy& r : d.remedies) wrapped_text("- " + r.label + ": " + r.why, colour::text);
        wrapped_text(record_gap_text(RecordGap::remedies, *snapshot.record), colour::dim_text);
        return;
    }
    if (d.found) {
        ImGui::Spacing();
        const std::string rewind = "Rewind to step " + std::to_string(d.last_finite_step) + " (a fork, no change)";
        if (wide_button(rewind)) context.fork(d.last_finite_step, {});
        for (const Remedy& r : d.remedies) {
            if (wide_button(r.label + " (fork from step " + std::to_string(d.last_finite_step) + ")"))
                context.fork(d.last_finite_step, r.changes);
            if (ImGui::IsItemHovered()) {
                std::string tip = r.why + "\nOn a fork from step " + std::to_string(d.last_finite_step) + ":";
                for (const std::string& c : r.changes) tip += "\n  " + c;
                tooltip(tip);
            }
        }
    }
    const std::string fork = snapshot.record ? std::string() : fork_summary(snapshot);  // a record's fork is its what-if
    if (!fork.empty()) wrapped_text(fork, colour::fork);
}

}  // namespace plab::imgui
