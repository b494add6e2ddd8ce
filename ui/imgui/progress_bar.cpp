#include "ui/imgui/progress_bar.h"

#include <algorithm>

namespace plab::imgui {

namespace {

constexpr ImU32 kTextOnFill = IM_COL32(0x10, 0x12, 0x16, 0xff);

// The text centred in `min`..`max`, clipped to `clip_min`..`clip_max`.
void clipped_text(ImDrawList* d, ImVec2 min, ImVec2 max, ImVec2 clip_min, ImVec2 clip_max, ImU32 colour,
                  const std::string& text) {
    if (clip_max.x <= clip_min.x) return;
    const ImVec2 ts = ImGui::CalcTextSize(text.c_str());
    const ImVec2 at = {std::max(min.x, (min.x + max.x - ts.x) * 0.5f), (min.y + max.y - ts.y) * 0.5f};
    d->PushClipRect(clip_min, clip_max, true);
    d->AddText(at, colour, text.c_str());
    d->PopClipRect();
}

}  // namespace

void progress_bar(float fraction, const std::string& text, ImU32 fill) {
    const ImVec2 min = ImGui::GetCursorScreenPos();
    const ImVec2 max = {min.x + ImGui::GetContentRegionAvail().x, min.y + ImGui::GetFrameHeight()};
    ImGui::Dummy({max.x - min.x, max.y - min.y});
    ImDrawList* d = ImGui::GetWindowDrawList();
    const float split = min.x + (max.x - min.x) * std::clamp(fraction, 0.0f, 1.0f);
    d->AddRectFilled(min, max, ImGui::GetColorU32(ImGuiCol_FrameBg));
    d->AddRectFilled(min, {split, max.y}, fill);
    clipped_text(d, min, max, min, {split, max.y}, kTextOnFill, text);
    clipped_text(d, min, max, {split, min.y}, max, colour::text, text);
}

}  // namespace plab::imgui
