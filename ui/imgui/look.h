#pragma once
// How the live view looks: its colours (one palette for every panel) and its
// size, normal or "projector" (larger fonts, thicker lines, for a big screen
// seen from the back of a room).
#include <imgui.h>

#include <cstddef>

#include "engine/numeric/format.h"
#include "ui/present/bit_layout.h"

namespace plab::imgui {

namespace colour {
inline constexpr ImU32 background = IM_COL32(0x1b, 0x1e, 0x23, 0xff);
inline constexpr ImU32 popup_background = IM_COL32(0x12, 0x14, 0x18, 0xff);
inline constexpr ImU32 grid = IM_COL32(0x3a, 0x3f, 0x47, 0xff);
inline constexpr ImU32 axis = IM_COL32(0x80, 0x86, 0x90, 0xff);
inline constexpr ImU32 text = IM_COL32(0xe6, 0xe6, 0xe6, 0xff);
inline constexpr ImU32 dim_text = IM_COL32(0xa8, 0xad, 0xb5, 0xff);
inline constexpr ImU32 amp = IM_COL32(0x4f, 0xa3, 0xff, 0xff);
inline constexpr ImU32 twin = IM_COL32(0xff, 0xa6, 0x3d, 0xff);
inline constexpr ImU32 fork = IM_COL32(0x3d, 0xd6, 0xc6, 0xff);
inline constexpr ImU32 overflow = IM_COL32(0xf0, 0x3c, 0x3c, 0xff);
inline constexpr ImU32 backoff = IM_COL32(0xc0, 0x6a, 0xf0, 0xff);
inline constexpr ImU32 growth = IM_COL32(0x3c, 0xc8, 0x6a, 0xff);
inline constexpr ImU32 edit = IM_COL32(0xf0, 0xd0, 0x40, 0xff);
}  // namespace colour

ImU32 with_alpha(ImU32 c, int alpha);
ImU32 band_colour(FormatId f);               // FP16 red, BF16 blue, E4M3 green, E5M2 purple
ImU32 bit_colour(BitRole role, bool set);    // sign red, exponent green, mantissa blue; set bits strong
ImU32 layer_colour(std::size_t layer);       // distinct hues, none red (red marks non-finite values)
ImVec4 to_vec4(ImU32 c);

// The fonts of one size of the live view.
struct FontSet {
    ImFont* body = nullptr;     // nullptr: ImGui's default font
    ImFont* heading = nullptr;
    ImFont* mono = nullptr;     // text whose characters line up (the samples); nullptr: ImGui's default
};

struct Fonts {
    FontSet normal, projector;
};

// Projector sizes relative to the normal ones (fonts, spacing, lines).
inline constexpr float kProjectorScale = 1.6f;

struct Look {
    bool projector = false;
    float scale = 1.0f;  // sizes relative to the normal look
    ImFont* font = nullptr;     // body text (nullptr: ImGui's current font)
    ImFont* heading = nullptr;  // panel titles and the NaN headline
    ImFont* mono = nullptr;     // a model's text above its twin's, character over character

    float line() const { return 2.0f * scale; }         // plotted lines
    float thin() const { return projector ? 2.0f : 1.0f; }  // grid, bands' edges
    float marker() const { return 5.0f * scale; }       // half the size of a scale-event marker
    // The title of a step axis: none on a projector, where its numbers say
    // enough and the line goes to the plot's height.
    const char* step_title() const { return projector ? "" : "step"; }
};

}  // namespace plab::imgui
