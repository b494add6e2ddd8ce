#include "ui/present/preset_about.h"

namespace plab {

std::string preset_about(const PresetInfo& preset) {
    if (!preset.error.empty()) return "does not load: " + preset.error;
    return preset.description.empty() ? "(no description)" : preset.description;
}

std::string preset_line(const std::string& name, const std::string& description) {
    return description.empty() ? name : name + ": " + description;
}

}  // namespace plab
