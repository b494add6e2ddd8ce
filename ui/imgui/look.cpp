#include "ui/imgui/look.h"

#include <iterator>

namespace plab::imgui {

ImU32 with_alpha(ImU32 c, int alpha) {
    return (c & ~IM_COL32_A_MASK) | (static_cast<ImU32>(alpha & 0xff) << IM_COL32_A_SHIFT);
}

ImU32 band_colour(FormatId f) {
    switch (f) {
        case FormatId::fp16: return IM_COL32(0xf0, 0x50, 0x50, 0xff);
        case FormatId::bf16: return IM_COL32(0x40, 0xa0, 0xf0, 0xff);
        case FormatId::e4m3: return IM_COL32(0x50, 0xc8, 0x70, 0xff);
        default: return IM_COL32(0xb8, 0x78, 0xf0, 0xff);
    }
}

ImU32 bit_colour(BitRole role, bool set) {
    switch (role) {
        case BitRole::sign: return set ? IM_COL32(0xe0, 0x48, 0x48, 0xff) : IM_COL32(0x5a, 0x2a, 0x2a, 0xff);
        case BitRole::exponent: return set ? IM_COL32(0x38, 0xb0, 0x5c, 0xff) : IM_COL32(0x24, 0x4a, 0x30, 0xff);
        case BitRole::mantissa: return set ? IM_COL32(0x3c, 0x80, 0xe8, 0xff) : IM_COL32(0x26, 0x38, 0x5a, 0xff);
    }
    return colour::grid;
}

ImU32 layer_colour(std::size_t layer) {
    static constexpr ImU32 colours[] = {IM_COL32(0x5a, 0xa8, 0xe8, 0xff), IM_COL32(0xff, 0x9f, 0x40, 0xff),
                                        IM_COL32(0x5c, 0xd0, 0x5c, 0xff), IM_COL32(0xc0, 0x98, 0xf0, 0xff),
                                        IM_COL32(0xd0, 0xa0, 0x80, 0xff), IM_COL32(0x40, 0xe0, 0xf0, 0xff),
                                        IM_COL32(0xf0, 0x9a, 0xdc, 0xff), IM_COL32(0xb0, 0xb0, 0xb0, 0xff)};
    return colours[layer % std::size(colours)];
}

ImVec4 to_vec4(ImU32 c) { return ImGui::ColorConvertU32ToFloat4(c); }

}  // namespace plab::imgui
