#include "ui/imgui/panel.h"

namespace plab::imgui {

bool begin_panel(const char* id, const char* title, ImVec2 size, const Look& look) {
    const bool open = ImGui::BeginChild(id, size, true);
    if (look.heading) ImGui::PushFont(look.heading);
    ImGui::TextUnformatted(title);
    if (look.heading) ImGui::PopFont();
    return open;
}

void end_panel() { ImGui::EndChild(); }

void wrapped_text(const std::string& text, ImU32 colour) {
    ImGui::PushStyleColor(ImGuiCol_Text, colour);
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopStyleColor();
}

}  // namespace plab::imgui
