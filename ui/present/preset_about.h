#pragma once
// What the preset chooser says about a preset, so that a person picks one
// by what it shows rather than by its file name alone.
#include <string>

#include "engine/train/preset_io.h"

namespace plab {

// The file's one-line description; for a file that does not load, why not
// ("does not load: ..."); "(no description)" for a file without one.
std::string preset_about(const PresetInfo& preset);

// The status line of a run started from a preset: "spirals-amp-fp16: 3-arm
// spirals in ..."; the name alone when there is no description.
std::string preset_line(const std::string& name, const std::string& description);

}  // namespace plab
