#pragma once
// Terminal colour for the CLI's text output.
#include <string>
#include <string_view>

#include "ui/present/bit_layout.h"

namespace plab {

enum class ColorMode { auto_detect, always, never };

// Colour when asked to, or on a terminal whose TERM is not "dumb" and with no NO_COLOR set.
bool use_color(ColorMode mode, int fd);

// `text` wrapped in the ANSI colour of a bit role (when `color`).
std::string paint(std::string_view text, BitRole role, bool color);
// Dim text (labels), when `color`.
std::string dim(std::string_view text, bool color);

}  // namespace plab
