#include "ui/imgui/help_overlay.h"

#include <imgui.h>

#include "ui/present/live_keys.h"

namespace plab::imgui {

bool help_overlay(const Look& look, bool wanted) {
    constexpr const char* kId = "Keys##help";
    if (wanted && !ImGui::IsPopupOpen(kId)) ImGui::OpenPopup(kId);
    const ImGuiViewport* vp = ImGui::GetMainViewport();
    ImGui::SetNextWindowPos({vp->Pos.x + vp->Size.x * 0.5f, vp->Pos.y + vp->Size.y * 0.5f}, ImGuiCond_Always, {0.5f, 0.5f});
    constexpr ImGuiWindowFlags flags = ImGuiWindowFlags_NoDecoration | ImGuiWindowFlags_AlwaysAutoResize |
                                       ImGuiWindowFlags_NoMove | ImGuiWindowFlags_NoSavedSettings;
    if (!ImGui::BeginPopupModal(kId, nullptr, flags)) return false;
    if (look.heading) ImGui::PushFont(look.heading);
    ImGui::TextUnformatted("Keys");
    if (look.heading) ImGui::PopFont();
    if (ImGui::BeginTable("##keys", 2, ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingFixedFit)) {
        for (const KeyHelp& k : live_key_help()) {
            ImGui::TableNextRow();
            ImGui::TableNextColumn();
            ImGui::TextColored(to_vec4(colour::edit), "%s", k.keys_text.c_str());
            ImGui::TableNextColumn();
            ImGui::TextUnformatted(k.what.c_str());
        }
        ImGui::EndTable();
    }
    ImGui::TextDisabled("Click a histogram bar: its edge in the bit layout. Click a bit: flip it.");
    ImGui::TextDisabled("H or a click closes this.");
    const bool open = wanted && !ImGui::IsMouseClicked(ImGuiMouseButton_Left);
    if (!open) ImGui::CloseCurrentPopup();
    ImGui::EndPopup();
    return open;
}

}  // namespace plab::imgui
