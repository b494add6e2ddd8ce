#include "engine/train/preset_read.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>

#include "engine/common/error.h"
#include "engine/common/nearest_name.h"
#include "engine/common/field_check.h"
#include "engine/train/preset_fields.h"

namespace plab::preset {

namespace {

using Kind = JsonNode::Kind;

// A value of the wrong type or an unknown name: the field_check.h shape with
// "is not allowed" (reject_field says "is out of range", which is for numbers).
[[noreturn]] void reject_value(const std::string& path, const JsonNode& node, std::string_view allowed) {
    throw Error(path + ": " + json_excerpt(node) + " is not allowed; allowed " + std::string(allowed));
}

bool is_number(const JsonNode& node) { return node.kind == Kind::integer || node.kind == Kind::number; }

template <typename T>
bool parse_text(const std::string& text, T& out, std::errc& ec) {
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), out);
    ec = error;
    return error == std::errc{} && end == text.data() + text.size();
}

// A whole number, written as an integer or as 2.0 / 1e3; nullopt otherwise.
std::optional<long long> whole_number(const JsonNode& node) {
    std::errc ec{};
    if (node.kind == Kind::integer) {
        long long x = 0;
        if (parse_text(node.text, x, ec)) return x;
    } else if (node.kind == Kind::number) {
        double d = 0.0;
        constexpr double kLimit = 9.2e18;  // below 2^63
        if (parse_text(node.text, d, ec) && std::trunc(d) == d && std::fabs(d) < kLimit) return static_cast<long long>(d);
    }
    return std::nullopt;
}

std::string int_allowed(IntLimits limits) {
    if (limits.lo == INT_MIN && limits.hi == INT_MAX) return "an integer";
    return "an integer " + std::to_string(limits.lo) + ".." + std::to_string(limits.hi);
}

// Floats and doubles are read from the number's text: one correctly rounded
// conversion, and a range error instead of Inf or a silent 0.
template <typename T>
void read_real(const JsonNode& node, const std::string& path, T& out) {
    if (!is_number(node)) reject_value(path, node, "a number");
    T x{};
    std::errc ec{};
    if (!parse_text(node.text, x, ec)) {
        using L = std::numeric_limits<T>;
        reject_field(path, node.text,
                     std::string(sizeof(T) == 4 ? "a float" : "a double") + ": 0 or " +
                         shortest_number(L::denorm_min()) + " <= |x| <= " + shortest_number(L::max()));
    }
    out = x;
}

void read_value(const JsonNode& node, const std::string& path, float& out) { read_real(node, path, out); }
void read_value(const JsonNode& node, const std::string& path, double& out) { read_real(node, path, out); }

void read_value(const JsonNode& node, const std::string& path, IntField field) {
    const std::optional<long long> x = whole_number(node);
    if (!x) reject_value(path, node, int_allowed(field.limits));
    check_int_field(path, *x, field.limits.lo, field.limits.hi);
    field.value = static_cast<int>(*x);
}

void read_value(const JsonNode& node, const std::string& path, std::uint64_t& out) {
    std::errc ec{};
    std::uint64_t x = 0;
    if (node.kind == Kind::integer && parse_text(node.text, x, ec)) {
        out = x;
        return;
    }
    const std::optional<long long> whole = whole_number(node);
    if (!whole || *whole < 0) reject_value(path, node, "an integer 0..18446744073709551615");
    out = static_cast<std::uint64_t>(*whole);
}

void read_value(const JsonNode& node, const std::string& path, bool& out) {
    if (node.kind != Kind::boolean) reject_value(path, node, "true|false");
    out = node.boolean;
}

void read_value(const JsonNode& node, const std::string& path, std::string& out) {
    if (node.kind != Kind::string) reject_value(path, node, "a string");
    out = node.text;
}

void read_value(const JsonNode& node, const std::string& path, std::vector<int>& out) {
    if (node.kind != Kind::array) reject_value(path, node, "an array of integers, e.g. [64, 64]");
    std::vector<int> values(node.items.size());
    for (std::size_t i = 0; i < values.size(); ++i)
        read_value(node.items[i], path + "[" + std::to_string(i) + "]", IntField{values[i]});
    out = std::move(values);
}

template <typename E>
E read_name(const JsonNode& node, const std::string& path, std::optional<E> (*parse)(std::string_view),
            std::string (*choices)()) {
    const std::optional<E> value = node.kind == Kind::string ? parse(node.text) : std::nullopt;
    if (!value) reject_value(path, node, choices());
    return *value;
}

template <typename E>
void read_value(const JsonNode& node, const std::string& path, EnumField<E> field) {
    field.value = read_name(node, path, field.parse, field.choices);
}

template <typename E>
void read_value(const JsonNode& node, const std::string& path, EnumListField<E> field) {
    if (node.kind != Kind::array) reject_value(path, node, "an array of names from " + field.choices());
    std::vector<E> values;
    for (std::size_t i = 0; i < node.items.size(); ++i)
        values.push_back(read_name(node.items[i], path + "[" + std::to_string(i) + "]", field.parse, field.choices));
    field.values = std::move(values);
}

FormatId read_override_format(const JsonNode& node, const std::string& path) {
    const std::optional<FormatId> f = node.kind == Kind::string ? parse_format(node.text) : std::nullopt;
    if (!f || !is_override_format(*f)) reject_value(path, node, override_format_choices());
    return *f;
}

void reject_duplicate_keys(const JsonNode& object, std::string_view section) {
    for (std::size_t i = 0; i < object.members.size(); ++i)
        for (std::size_t j = 0; j < i; ++j)
            if (object.members[i].first == object.members[j].first)
                throw Error(field_path(section, object.members[i].first) + ": duplicate key; each key may appear once");
}

// The whole map: a file's object replaces what was there.
void read_value(const JsonNode& node, const std::string& path, LayerOverridesField field) {
    if (node.kind != Kind::object)
        reject_value(path, node, "an object of layer name -> " + override_format_choices() + ", e.g. {\"fc2\": \"fp32\"}");
    reject_duplicate_keys(node, path);
    std::map<std::string, FormatId> overrides;
    for (const auto& [layer, value] : node.members) overrides[layer] = read_override_format(value, path + "." + layer);
    field.value = std::move(overrides);
}

constexpr bool takes_bare_text(const std::string&) { return true; }
template <typename E>
constexpr bool takes_bare_text(const EnumField<E>&) { return true; }
template <typename T>
constexpr bool takes_bare_text(const T&) { return false; }

std::string joined(const std::vector<std::string>& items, std::string_view separator) {
    std::string out;
    for (const std::string& item : items) out += (out.empty() ? "" : std::string(separator)) + item;
    return out;
}

}  // namespace

bool is_section(std::string_view key) {
    return std::find(std::begin(kSections), std::end(kSections), key) != std::end(kSections);
}

std::vector<std::string> section_keys(std::string_view section) {
    std::vector<std::string> keys;
    RunConfig scratch;
    visit_fields(scratch, [&](std::string_view s, std::string_view k, auto&&) {
        if (s == section) keys.emplace_back(k);
    });
    if (section.empty())
        for (std::string_view s : kSections) keys.emplace_back(s);
    return keys;
}

void reject_unknown_key(const std::string& path, std::string_view section, std::string_view key) {
    const std::vector<std::string> keys = section_keys(section);
    std::string message = path + ": unknown key; allowed keys: " + joined(keys, ", ");
    if (const std::optional<std::string> nearest = nearest_name(key, keys))
        message += "; did you mean " + *nearest + "?";
    throw Error(message);
}

void read_section(RunConfig& config, const JsonNode& node, std::string_view section) {
    if (node.kind != Kind::object) {
        if (section.empty()) throw Error("a preset must be a JSON object {...}; got " + json_excerpt(node));
        reject_value(std::string(section), node, "an object with keys " + joined(section_keys(section), ", "));
    }
    reject_duplicate_keys(node, section);
    for (const auto& [key, value] : node.members) {
        const std::string path = field_path(section, key);
        if (section.empty() && is_section(key)) {
            read_section(config, value, key);
            continue;
        }
        bool found = false;
        visit_fields(config, [&](std::string_view s, std::string_view k, auto&& field) {
            if (s != section || k != key) return;
            read_value(value, path, field);
            found = true;
        });
        if (!found) reject_unknown_key(path, section, key);
    }
}

namespace {

// "2^K": loss scales are powers of two and the lab prints them so (2^16), so
// a value is accepted as written. The node carries the value's exact decimal
// text, which the field reads like any number (an integer up to 2^62, so
// integer fields take it too).
std::optional<JsonNode> power_of_two_node(std::string_view text) {
    if (text.substr(0, 2) != "2^") return std::nullopt;
    const std::string_view exponent = text.substr(2);
    int k = 0;
    const auto [end, ec] = std::from_chars(exponent.data(), exponent.data() + exponent.size(), k);
    if (ec != std::errc{} || end != exponent.data() + exponent.size()) return std::nullopt;
    if (k >= 0 && k <= 62) return JsonNode{Kind::integer, false, std::to_string(std::int64_t{1} << k), {}, {}};
    const double value = std::ldexp(1.0, k);
    if (value == 0.0 || !std::isfinite(value)) return std::nullopt;
    char digits[32];
    return JsonNode{Kind::number, false, std::string(digits, std::to_chars(digits, digits + sizeof digits, value).ptr),
                    {}, {}};
}

}  // namespace

JsonNode setting_value(std::string_view text, bool bare_text_is_string) {
    const JsonNode bare{Kind::string, false, std::string(text), {}, {}};
    if (!bare_text_is_string)
        if (std::optional<JsonNode> power = power_of_two_node(text)) return *power;
    // A bare null means what it means in a preset file (refused for a text
    // field); the word itself is written in quotes, as in JSON.
    const bool json_only = text == "null" || (!text.empty() && text.front() == '"');
    if (bare_text_is_string && !json_only) return bare;
    try {
        return parse_json(text, "");
    } catch (const Error&) {
        return bare;
    }
}

bool set_field(RunConfig& config, std::string_view section, std::string_view key, std::string_view text) {
    bool found = false;
    visit_fields(config, [&](std::string_view s, std::string_view k, auto&& field) {
        if (s != section || k != key) return;
        try {
            read_value(setting_value(text, takes_bare_text(field)), field_path(section, key), field);
        } catch (const Error& e) {
            if (text != "null" || !takes_bare_text(field)) throw;
            throw Error(std::string(e.what()) + " (for the word null, quote it: " + field_path(section, key) +
                        "='\"null\"')");
        }
        found = true;
    });
    return found;
}

void set_layer_override(RunConfig& config, std::string_view layer, std::string_view text) {
    const std::string path = "precision.layer_overrides." + std::string(layer);
    config.precision.layer_overrides[std::string(layer)] = read_override_format(setting_value(text, true), path);
}

}  // namespace plab::preset
