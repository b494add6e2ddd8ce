#include "ui/imgui/bits_panel.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "engine/common/error.h"
#include "engine/common/number_text.h"
#include "engine/numeric/scalar_cast.h"
#include "engine/numeric/value_text.h"
#include "ui/imgui/plot.h"
#include "ui/present/bit_layout.h"

namespace plab::imgui {

BitsPanel::BitsPanel() { set_value(value_); }

void BitsPanel::set_value(float x) {
    value_ = x;
    std::snprintf(input_, sizeof input_, "%s", shortest_text(x).c_str());
    error_.clear();
}

void BitsPanel::draw(const Look& look) {
    const float h = ImGui::GetTextLineHeight();
    ImGui::TextUnformatted("value");
    ImGui::SameLine();
    ImGui::SetNextItemWidth(h * 12);
    if (ImGui::InputText("##value", input_, sizeof input_, ImGuiInputTextFlags_EnterReturnsTrue)) {
        try {
            value_ = parse_fp32_value(input_);
            error_.clear();
        } catch (const Error& e) {
            error_ = e.what();
        }
    }
    if (ImGui::IsItemHovered()) tooltip("Enter a number: " + fp32_value_syntax());
    ImGui::SameLine();
    ImGui::TextDisabled("click a bit to flip it");
    if (!error_.empty()) wrapped_text(error_, colour::overflow);

    const float label_w = ImGui::CalcTextSize("E4M3 ").x + h * 0.5f;
    const float avail = ImGui::GetContentRegionAvail().x - label_w;
    const float cell_w = std::clamp(avail / 32.0f - 1.0f, h * 0.6f, h * 1.2f);
    const float cell_h = h * 1.35f;
    for (FormatId f : kAllFormats) {
        const CastReport report = describe_cast(f, value_);
        const BitLayout layout = make_bit_layout(report);
        ImGui::PushID(static_cast<int>(f));
        ImGui::AlignTextToFramePadding();
        ImGui::TextUnformatted(layout.format_label.c_str());
        ImGui::SameLine(label_w);
        ImDrawList* d = ImGui::GetWindowDrawList();
        for (std::size_t i = 0; i < layout.cells.size(); ++i) {
            const BitCell& c = layout.cells[i];
            if (i) ImGui::SameLine(0, i > 0 && layout.cells[i - 1].role != c.role ? 4.0f * look.scale : 1.0f);
            const ImVec2 p = ImGui::GetCursorScreenPos();
            ImGui::PushID(static_cast<int>(i));
            if (ImGui::InvisibleButton("bit", {cell_w, cell_h})) {
                value_ = decode(f, flip_bit(report.fields.code, c.position));
                error_.clear();
            }
            const bool over = ImGui::IsItemHovered();
            ImGui::PopID();
            // Square corners: a rounded cell is an anti-aliased polygon of
            // about 30 triangles, a square one 2; rounding the 99 cells costs
            // a visible share of a frame under llvmpipe (docs/perf.md).
            d->AddRectFilled(p, {p.x + cell_w, p.y + cell_h}, bit_colour(c.role, c.set));
            if (over) d->AddRect(p, {p.x + cell_w, p.y + cell_h}, colour::edit, 0.0f, 0, 2.0f);
            const char* digit = c.set ? "1" : "0";
            const ImVec2 ds = ImGui::CalcTextSize(digit);
            d->AddText({p.x + (cell_w - ds.x) * 0.5f, p.y + (cell_h - ds.y) * 0.5f},
                       c.set ? colour::text : colour::dim_text, digit);
            if (over) tooltip("bit " + std::to_string(c.position) + ": click to flip");
        }
        ImGui::SetCursorPosX(label_w);
        std::string info = layout.value + "  " + layout.hex + "  " + layout.value_class;
        if (report.rel_error != 0) info += "  rel error " + significant_text(report.rel_error, 3);
        ImGui::TextUnformatted(info.c_str());
        if (!layout.note.empty()) {
            ImGui::SameLine();
            ImGui::TextColored(to_vec4(colour::overflow), "%s", layout.note.c_str());
        }
        if (ImGui::IsItemHovered())
            tooltip("error " + layout.abs_error + " (relative " + layout.rel_error + ")\nneighbours " + layout.next_down +
                    " and " + layout.next_up + "\nulp " + layout.ulp);
        ImGui::PopID();
    }
    // Whatever was clicked or typed shows in the box next frame.
    if (error_.empty() && !ImGui::IsAnyItemActive()) std::snprintf(input_, sizeof input_, "%s", shortest_text(value_).c_str());
}

}  // namespace plab::imgui
