#include "engine/train/preset_rules.h"

namespace plab {

namespace {
constexpr FormatId kOverrideFormats[] = {FormatId::fp32, FormatId::tf32, FormatId::fp16, FormatId::bf16};
}  // namespace

std::vector<std::string> model_layer_names(const ModelConfig& model) {
    std::vector<std::string> names;
    for (std::size_t i = 1; i <= model.hidden.size() + 1; ++i) names.push_back("fc" + std::to_string(i));
    return names;
}

bool is_override_format(FormatId f) {
    for (FormatId allowed : kOverrideFormats)
        if (f == allowed) return true;
    return false;
}

std::string override_format_choices() {
    std::string out;
    for (FormatId f : kOverrideFormats) {
        if (!out.empty()) out += '|';
        out += format_name(f);
    }
    return out;
}

}  // namespace plab
