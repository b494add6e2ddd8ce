#include "engine/train/preset_rules.h"

#include "engine/model/gpt_names.h"

namespace plab {

namespace {
constexpr FormatId kOverrideFormats[] = {FormatId::fp32, FormatId::tf32, FormatId::fp16, FormatId::bf16};
}  // namespace

std::vector<std::string> model_layer_names(const ModelConfig& model) {
    std::vector<std::string> names;
    if (model.kind == ModelKind::gpt) {  // TinyGpt's matmul layers, in its order
        for (int b = 0; b < model.gpt.layers; ++b)
            for (std::size_t l = 0; l < gpt_names::kBlockLinears.size(); ++l)
                names.push_back(gpt_names::block_linear(gpt_names::block(b), l));
        names.emplace_back(gpt_names::kHead);
        return names;
    }
    for (std::size_t i = 1; i <= model.hidden.size() + 1; ++i) names.push_back("fc" + std::to_string(i));
    return names;
}

std::vector<std::string> telemetry_layer_names(const ModelConfig& model) {
    std::vector<std::string> names = model_layer_names(model);
    if (model.kind != ModelKind::gpt) return names;
    if (!model.gpt.tied_head) names.emplace_back(gpt_names::kTokenTable);
    names.emplace_back(gpt_names::kPositionTable);
    return names;
}

bool is_table_layer(std::string_view name) {
    return name == gpt_names::kTokenTable || name == gpt_names::kPositionTable;
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
