#pragma once
// What every ImGui panel shares: what it may ask of the app (the same
// commands the keys give, live edits, forks, a value for the bit layout), and
// the bordered, titled region it draws in.
#include <imgui.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "engine/train/session.h"
#include "ui/imgui/look.h"
#include "ui/present/live_keys.h"

namespace plab::imgui {

struct LiveContext {
    std::function<void(const LiveAction&)> perform;  // as if its key was pressed
    std::function<void(const std::string&)> set;     // a live edit ("scaler.kind=static")
    std::function<void(std::int64_t, const std::vector<std::string>&)> fork;  // at a step, with changes
    std::function<void(float)> inspect;              // show a value in the bit layout panel
    std::function<void(std::int64_t)> trace;         // trace a step op by op (Session::trace)
    std::size_t* pace = nullptr;                     // Play's pace: an entry of pace_choices()
};

// A child region of `size` with a border and `title` in the heading font;
// end_panel() closes it (always, whatever begin_panel returned).
bool begin_panel(const char* id, const char* title, ImVec2 size, const Look& look);
void end_panel();

// Text that wraps at the region's edge, in one colour.
void wrapped_text(const std::string& text, ImU32 colour);

}  // namespace plab::imgui
