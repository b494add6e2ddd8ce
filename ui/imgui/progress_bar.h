#pragma once
// A progress bar whose text reads at any fill: dark over the filled part,
// light over the rest (ImGui's own bar draws one text colour over both).
#include <string>

#include "ui/imgui/look.h"

namespace plab::imgui {

// Full width at the cursor, one frame high; `fraction` is clamped to 0..1.
void progress_bar(float fraction, const std::string& text, ImU32 fill);

}  // namespace plab::imgui
