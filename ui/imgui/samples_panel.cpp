#include "ui/imgui/samples_panel.h"

#include <algorithm>
#include <limits>
#include <string>

namespace plab::imgui {

namespace {

// Where the model's text departs from its twin's: red and underlined, so
// that it reads without colour too.
void departed_text(const char* begin, const char* end) {
    ImGui::PushStyleColor(ImGuiCol_Text, colour::overflow);
    ImGui::TextUnformatted(begin, end);
    ImGui::PopStyleColor();
    const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
    ImGui::GetWindowDrawList()->AddLine({lo.x, hi.y}, hi, colour::overflow);
}

// One side's text in lines of `columns` characters (line_starts): the part
// both sides share in `colour`, the departed part marked.
void split_lines(const SplitText& t, ImU32 colour, int columns) {
    const std::string text = t.same + t.departed;
    const std::vector<std::size_t> starts = line_starts(text, columns);
    const char* s = text.data();
    for (std::size_t i = 0; i < starts.size(); ++i) {
        const std::size_t begin = starts[i], end = i + 1 < starts.size() ? starts[i + 1] : text.size();
        const std::size_t cut = std::clamp(t.same.size(), begin, end);
        ImGui::PushStyleColor(ImGuiCol_Text, colour);
        if (cut > begin || cut == end) ImGui::TextUnformatted(s + begin, s + cut);
        ImGui::PopStyleColor();
        if (cut == end) continue;
        if (cut > begin) ImGui::SameLine(0, 0);
        departed_text(s + cut, s + end);
    }
}

// The columns of monospace text that fit the width left on the line.
int text_columns() {
    return std::max(1, static_cast<int>(ImGui::GetContentRegionAvail().x / ImGui::CalcTextSize("M").x));
}

void label(const char* text, ImU32 colour) {
    ImGui::TableNextColumn();
    ImGui::TextColored(to_vec4(colour), "%s", text);
}

void free_text(const SampleStep& step, bool twin, const Look& look) {
    if (!ImGui::BeginTable("##text", 2, ImGuiTableFlags_SizingFixedFit)) return;
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthFixed);
    ImGui::TableSetupColumn("", ImGuiTableColumnFlags_WidthStretch);
    for (const SampleRow& r : step.rows) {
        ImGui::PushFont(look.mono);
        label("prompt", colour::dim_text);
        ImGui::TableNextColumn();
        split_lines({r.prompt, ""}, colour::dim_text, text_columns());
        label("model", colour::amp);
        ImGui::TableNextColumn();
        split_lines(r.model, colour::text, text_columns());
        if (twin) {
            label("twin", colour::twin);
            ImGui::TableNextColumn();
            split_lines(r.twin, colour::text, text_columns());
        }
        ImGui::PopFont();
    }
    ImGui::EndTable();
}

void answer(const SplitText& t, bool exact) {
    ImGui::TableNextColumn();
    split_lines(t, colour::text, std::numeric_limits<int>::max());  // a few digits: never cut
    ImGui::SameLine();
    ImGui::TextColored(to_vec4(exact ? colour::growth : colour::overflow), "%s", exact ? "\u2713" : "\u2717");
}

void answers(const SampleStep& step, bool twin, const Look& look) {
    if (!ImGui::BeginTable("##answers", twin ? 4 : 3, ImGuiTableFlags_SizingFixedFit | ImGuiTableFlags_RowBg)) return;
    ImGui::PushFont(look.mono);
    label("problem", colour::dim_text);
    label("answer", colour::dim_text);
    label("model", colour::amp);
    if (twin) label("twin", colour::twin);
    for (const SampleRow& r : step.rows) {
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(r.prompt.c_str());
        ImGui::TableNextColumn();
        ImGui::TextUnformatted(r.expected.c_str());
        answer(r.model, r.model_exact);
        if (twin) answer(r.twin, r.twin_exact);
    }
    ImGui::PopFont();
    ImGui::EndTable();
}

}  // namespace

// Keeps the reader's pick while its step is still among the samples; returns the step shown.
int SamplesPanel::draw_step_chooser(const SamplesView& view) {
    const int index = picked_step_index(view, picked_);
    if (index <= 0) picked_ = -1;
    const auto text = [&](std::size_t i) { return view.steps[i].label + ": " + view.steps[i].summary; };
    ImGui::SetNextItemWidth(-std::numeric_limits<float>::min());
    if (ImGui::BeginCombo("##step", text(static_cast<std::size_t>(index)).c_str())) {
        for (std::size_t i = 0; i < view.steps.size(); ++i)
            if (ImGui::Selectable(text(i).c_str(), static_cast<int>(i) == index))
                picked_ = i == 0 ? -1 : view.steps[i].step;
        ImGui::EndCombo();
    }
    return picked_step_index(view, picked_);
}

void SamplesPanel::draw(const SessionSnapshot& snapshot, const Look& look) {
    const SamplesView view = make_samples_view(snapshot);
    if (!view.title.empty()) wrapped_text(view.title, colour::dim_text);
    if (view.steps.empty()) {
        wrapped_text(view.note, colour::dim_text);
        return;
    }
    const SampleStep& step = view.steps[static_cast<std::size_t>(draw_step_chooser(view))];
    if (view.answers)
        answers(step, view.twin, look);
    else
        free_text(step, view.twin, look);
    if (view.twin) wrapped_text("Red, underlined: from the first character where the model departs from its FP32 twin.",
                                colour::dim_text);
}

}  // namespace plab::imgui
