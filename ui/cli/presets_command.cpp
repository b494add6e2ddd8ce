// plab presets: the preset library, and any preset fully resolved.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <iostream>
#include <nlohmann/json.hpp>

#include "engine/amp/scaler_fields.h"
#include "engine/train/preset_io.h"
#include "ui/cli/commands.h"

namespace plab {

namespace {

struct PresetsOptions {
    bool json = false;
    std::string show;                   // a name or a .json path
    std::vector<std::string> settings;  // --set PATH=VALUE, applied to --show
};

void write_table(const std::vector<PresetInfo>& presets, std::ostream& out) {
    std::size_t width = 4;
    for (const PresetInfo& p : presets) width = std::max(width, p.name.size());
    out << "NAME" << std::string(width - 4 + 2, ' ') << "DESCRIPTION\n";
    for (const PresetInfo& p : presets)
        out << p.name << std::string(width - p.name.size() + 2, ' ')
            << (p.error.empty() ? p.description : "(does not load) " + p.error) << '\n';
    std::string dirs;
    for (const std::string& dir : preset_dirs()) dirs += (dirs.empty() ? "" : ", ") + dir;
    out << "\nfrom " << (dirs.empty() ? "no preset directory" : dirs)
        << "\nplab presets --show NAME prints one in full; plab run --preset NAME trains it.\n";
}

void write_json(const std::vector<PresetInfo>& presets, std::ostream& out) {
    nlohmann::ordered_json list = nlohmann::ordered_json::array();
    for (const PresetInfo& p : presets) {
        nlohmann::ordered_json entry = {{"name", p.name}, {"description", p.description}, {"path", p.path}};
        if (!p.error.empty()) entry["error"] = p.error;
        list.push_back(std::move(entry));
    }
    out << list.dump(2) << '\n';
}

void run_presets(const PresetsOptions& o, std::ostream& out) {
    if (!o.show.empty()) {
        RunConfig config = load_preset(o.show);
        apply_settings(config, o.settings);
        // A copy that sets what its scaler kind ignores would train as if it did not: refused, as plab run does.
        require_read_scaler_settings("--set", o.settings, {config.scaler.kind});
        out << run_config_to_json(config, true);
        return;
    }
    const std::vector<PresetInfo> presets = list_presets();
    if (o.json)
        write_json(presets, out);
    else
        write_table(presets, out);
}

// The --set paths, wrapped for the help text.
std::string paths_text() {
    std::string text, line = " ";
    for (const std::string& path : setting_paths()) {
        if (line.size() + path.size() + 2 > 100) {
            text += line + "\n";
            line = " ";
        }
        line += " " + path;
    }
    return text + line;
}

}  // namespace

void add_presets_command(CLI::App& app) {
    auto options = std::make_shared<PresetsOptions>();
    CLI::App* cmd = app.add_subcommand("presets", "List the preset library, or print one preset fully resolved");
    cmd->footer(
        "A preset is a JSON file that defines a whole run: seed, steps, batch size, the data set, the\n"
        "model, the precision recipe and per-layer policy, the loss scaler and the optimizer. Every key\n"
        "is optional: an omitted key takes its default (the scaler's kind follows the recipe: dynamic for\n"
        "amp-fp16 and fp16-pure, none otherwise). --show prints every field as it resolves. A wrong key,\n"
        "type or value is an error that names the field and what is allowed.\n"
        "\n"
        "Presets are found by name in these directories, the first match winning:\n"
        "  $PLAB_PRESET_DIR (':'-separated), <plab's directory>/../share/precision-lab/presets,\n"
        "  and the source tree's assets/presets. A path to any .json file works as well.\n"
        "\n"
        "Examples:\n"
        "  plab presets                                        the library: name and what you will see\n"
        "  plab presets --json                                 the same as a JSON array\n"
        "  plab presets --show spirals-amp-fp16                every field of one preset\n"
        "  plab presets --show spirals-amp-fp16 --set scaler.init_scale=1024 --set name=my-run > my-run.json\n"
        "  plab run --preset my-run.json                       train your copy\n"
        "\n"
        "--set PATH=VALUE (here and in plab run) changes one field; VALUE is JSON, names need no quotes:\n"
        "  scaler.growth_interval=100  model.hidden=[32,32]  twin=false  precision.recipe=amp-bf16\n"
        "  precision.layer_overrides.fc2=fp32\n"
        "Paths:\n" +
        paths_text());
    CLI::Option* json = cmd->add_flag("--json", options->json, "Write the list as a JSON array of {name, description, path}");
    CLI::Option* show =
        cmd->add_option("--show", options->show, "Print this preset (a name or a .json file) with every field resolved");
    cmd->add_option("--set", options->settings, "With --show: change one field, PATH=VALUE (repeatable)")
        ->needs(show)
        ->allow_extra_args(false);
    json->excludes(show);
    cmd->callback([options] { run_presets(*options, std::cout); });
}

}  // namespace plab
