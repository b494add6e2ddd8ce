#include "engine/train/preset_rules.h"

namespace plab {

namespace {
constexpr FormatId kOverrideFormats[] = {FormatId::fp32, FormatId::tf32, FormatId::fp16, FormatId::bf16};
}  // namespace

std::vector<std::string> model_layer_names(const ModelConfig& model) {
    std::vector<std::string> names;
    if (model.kind == ModelKind::gpt) {  // TinyGpt's matmul layers, in its order
        for (int b = 0; b < model.gpt.layers; ++b)
            for (const char* l : {"attn.q", "attn.k", "attn.v", "attn.proj", "mlp.fc", "mlp.proj"})
                names.push_back("h" + std::to_string(b) + "." + l);
        names.emplace_back("head");
        return names;
    }
    for (std::size_t i = 1; i <= model.hidden.size() + 1; ++i) names.push_back("fc" + std::to_string(i));
    return names;
}

namespace {
// TinyGpt's parameter names for its embedding tables (tiny_gpt.cpp).
constexpr std::string_view kTokenTable = "wte", kPositionTable = "wpe";
}  // namespace

std::vector<std::string> telemetry_layer_names(const ModelConfig& model) {
    std::vector<std::string> names = model_layer_names(model);
    if (model.kind != ModelKind::gpt) return names;
    if (!model.gpt.tied_head) names.emplace_back(kTokenTable);
    names.emplace_back(kPositionTable);
    return names;
}

bool is_table_layer(std::string_view name) { return name == kTokenTable || name == kPositionTable; }

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
