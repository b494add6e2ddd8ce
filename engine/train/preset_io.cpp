#include "engine/train/preset_io.h"

#include <algorithm>

#include "engine/common/error.h"
#include "engine/train/preset_fields.h"
#include "engine/train/preset_json.h"
#include "engine/train/preset_read.h"

namespace plab {

namespace {

// The scaler a file asks for, or the recipe's when the file names none.
bool names_scaler_kind(const JsonNode& root) {
    const JsonNode* scaler = root.find("scaler");
    return scaler != nullptr && scaler->find("kind") != nullptr;
}

}  // namespace

RunConfig parse_run_config(std::string_view json_text, std::string_view source) {
    const JsonNode root = parse_json(json_text, source);
    try {
        RunConfig config;
        preset::read_section(config, root, "");
        if (!names_scaler_kind(root)) config.scaler.kind = recipe_default_scaler(config.precision.recipe);
        config.data.seed = config.seed;
        validate(config);
        return config;
    } catch (const Error& e) {
        if (source.empty()) throw;
        throw Error(std::string(source) + ": " + e.what());
    }
}

void apply_setting(RunConfig& config, std::string_view assignment) {
    const std::size_t eq = assignment.find('=');
    if (eq == std::string_view::npos || eq == 0)
        throw Error("--set: " + json_quote(assignment) +
                    " is not allowed; allowed PATH=VALUE, e.g. scaler.init_scale=1024 (paths: plab presets --help)");
    const std::string_view path = assignment.substr(0, eq);
    const std::string_view text = assignment.substr(eq + 1);
    // A space in the path would only get "unknown key ... did you mean steps?".
    if (path.find_first_of(" \t") != std::string_view::npos)
        throw Error("--set: " + json_quote(assignment) +
                    " has a space in its path; write PATH=VALUE with no space before the '=', e.g. steps=5");
    const std::size_t dot = path.find('.');
    const std::string_view head = path.substr(0, dot);
    const std::string_view rest = dot == std::string_view::npos ? std::string_view{} : path.substr(dot + 1);
    constexpr std::string_view kOverrides = "layer_overrides.";

    if (dot == std::string_view::npos && preset::is_section(head)) {
        preset::read_section(config, preset::setting_value(text, false), head);
    } else if (dot == std::string_view::npos) {
        if (!preset::set_field(config, "", head, text)) preset::reject_unknown_key(std::string(head), "", head);
    } else if (!preset::is_section(head)) {
        const std::vector<std::string> keys = preset::section_keys("");
        if (std::find(keys.begin(), keys.end(), head) == keys.end())
            preset::reject_unknown_key(std::string(head), "", head);
        throw Error(std::string(path) + ": unknown key; " + std::string(head) + " holds a value, not keys (--set " +
                    std::string(head) + "=VALUE)");
    } else if (head == "precision" && rest.substr(0, kOverrides.size()) == kOverrides) {
        preset::set_layer_override(config, rest.substr(kOverrides.size()), text);
    } else if (!preset::set_field(config, head, rest, text)) {
        preset::reject_unknown_key(std::string(path), head, rest);
    }
    config.data.seed = config.seed;
}

void apply_settings(RunConfig& config, const std::vector<std::string>& assignments) {
    for (const std::string& assignment : assignments) apply_setting(config, assignment);
    validate(config);
}

RunConfig edited_config(RunConfig config, const PresetEdits& edits) {
    apply_settings(config, edits.settings);
    if (edits.steps) config.steps = *edits.steps;
    if (edits.seed) config.seed = *edits.seed;
    config.data.seed = config.seed;  // as apply_setting keeps it: one config per run, however its seed was given
    if (edits.hist_every) config.telemetry.hist_every = *edits.hist_every;
    validate(config);
    return config;
}

std::vector<std::string> setting_paths() {
    std::vector<std::string> paths;
    RunConfig scratch;
    preset::visit_fields(scratch, [&](std::string_view section, std::string_view key, auto&&) {
        paths.push_back(preset::field_path(section, key));
    });
    return paths;
}

}  // namespace plab
