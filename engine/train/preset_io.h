#pragma once
// Presets (docs/DESIGN.md, "Presets and scenarios"): a RunConfig read from and written to JSON,
// edited by "path=value" assignments (--set), and the library of preset files.
// Every problem is a plab::Error that names the field path, the rejected value
// and what is allowed ("scaler.grwth_interval: unknown key; allowed keys: ...").
//
// File shape (every key optional; omitted keys take RunConfig's defaults,
// except scaler.kind, which defaults to the recipe's scaler):
//   {"name", "description", "guide", "seed", "steps", "batch_size", "eval_every", "twin",
//    "data": {"kind", "samples", "noise", "classes", "test_fraction", "digits", "garbled_from",
//             "garbled_steps"},
//    "model": {"kind", "hidden": [..], "activation", "layer_norm", "batch_norm", "init", "init_gain",
//              "attention_tokens", "attention_logit_scale", "context", "width", "heads", "layers", "tied_head",
//              "logit_scale", "embedding_std"},
//    "precision": {"recipe", "master_weights", "fp32_ops": [..], "layer_overrides": {"fc2": "fp32"},
//                  "fp8_scaling", "fp8_history_len", "fp8_margin", "accumulate"},
//    "scaler": {"kind", "init_scale", "growth_factor", "backoff_factor", "growth_interval",
//               "hysteresis", "min_scale", "max_scale"},
//    "optimizer": {"kind", "lr", "momentum", "beta1", "beta2", "eps", "weight_decay", "clip_norm",
//                  "clip_scaled", "accumulation"},
//    "telemetry": {"enabled", "hist_every", "sample_every", "sample_chars"}}
// The run's seed is also the data set's (data.seed is not a key).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/train/run_config.h"

namespace plab {

// Reads and validates a preset. `source` (a file name) prefixes every error
// message ("x.json: steps: 0 is out of range; ..."; syntax errors give
// "x.json:3:14: invalid JSON: ..."); empty for none. Integers must be whole
// numbers; floats are read from their text and rounded once to float (values
// beyond float's range are errors, not Inf or 0).
RunConfig parse_run_config(std::string_view json_text, std::string_view source);

// Every field, resolved, in file order. Floats are written as the shortest
// text that reads back to the same float, so parse(to_json(c)) == c.
// pretty: two-space indents, one field a line; else one line (a JSONL header).
std::string run_config_to_json(const RunConfig& config, bool pretty = true);

// One "path=value" edit, e.g. "scaler.init_scale=1024", "model.hidden=[32,32]",
// "twin=false", "precision.recipe=amp-bf16", "precision.layer_overrides.fc2=fp32",
// "scaler={\"kind\":\"static\"}". The value is JSON; for string and name
// fields it may be bare text; a number may be written as a power of two, 2^K
// ("scaler.init_scale=2^16"). Checks the path and the value's type, not ranges
// or consistency: validate (or use apply_settings) once all edits are in. Only
// the named field changes (a new recipe does not change scaler.kind).
void apply_setting(RunConfig& config, std::string_view assignment);
// Every edit in order, then validate(config).
void apply_settings(RunConfig& config, const std::vector<std::string>& assignments);

// What plab run's options change in a preset, in the order a user reads
// them: each --set, then the dedicated flags.
struct PresetEdits {
    std::vector<std::string> settings;  // "path=value", as apply_setting takes them
    std::optional<int> steps;
    std::optional<std::uint64_t> seed;
    std::optional<int> hist_every;
};
// `config` with `edits` applied, validated. plab run and each run of a sweep
// resolve their config here, so the same edits train the same run.
RunConfig edited_config(RunConfig config, const PresetEdits& edits);

// Every path apply_setting accepts for a value, in file order ("name", ..., "telemetry.hist_every").
std::vector<std::string> setting_paths();

struct PresetInfo {
    std::string name;         // the file name without ".json": what load_preset() takes
    std::string description;  // from the file
    std::string path;         // the file
    std::string error;        // why the file does not load; empty when it does
};

// The presets in preset_dirs(), sorted by name; where two directories hold the
// same name, the earlier directory's file wins.
std::vector<PresetInfo> list_presets();

// A library name ("spirals-amp-fp16") or a path to a .json file (anything with
// a '/' or ending in ".json"). Unknown names list the known ones.
RunConfig load_preset(std::string_view name_or_path);

// Where presets are looked for, first wins: each directory in $PLAB_PRESET_DIR
// (':'-separated; one that does not exist is an error), then
// <directory of the running executable>/../share/precision-lab/presets, then the
// source tree's assets/presets. Only directories that exist, each once.
std::vector<std::string> preset_dirs();

}  // namespace plab
