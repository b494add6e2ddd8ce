#pragma once
// Reading preset values into a RunConfig, field by field, with the messages
// of field_check.h: the path, the rejected value and what is allowed. Shared
// by parse_run_config (whole files) and apply_setting (--set edits).
#include <string>
#include <string_view>
#include <vector>

#include "engine/train/preset_json.h"
#include "engine/train/run_config.h"

namespace plab::preset {

bool is_section(std::string_view key);
// The keys a section ("" = the top level) accepts, in file order.
std::vector<std::string> section_keys(std::string_view section);
// "PATH: unknown key; allowed keys: a, b, c" (+ "; did you mean b?").
[[noreturn]] void reject_unknown_key(const std::string& path, std::string_view section, std::string_view key);

// Reads the members of `node`, which must be an object, into the fields of
// `section` ("" = a whole preset, whose section keys are read recursively).
// Fields the object does not name keep their values.
void read_section(RunConfig& config, const JsonNode& node, std::string_view section);

// Sets one field from --set text. Returns false when (section, key) is not a field.
bool set_field(RunConfig& config, std::string_view section, std::string_view key, std::string_view text);
// Sets precision.layer_overrides[layer] from --set text.
void set_layer_override(RunConfig& config, std::string_view layer, std::string_view text);
// A --set value as JSON; bare text (and text that is not JSON) becomes a
// string, so "amp-bf16" needs no quotes and "abc" for a number is a type error.
// Where the field is no string, "2^K" is the number 2^K.
JsonNode setting_value(std::string_view text, bool bare_text_is_string);

}  // namespace plab::preset
