#pragma once
// The JSON a preset is read from, as a small tree that keeps every number as
// it was written: a float field is then read from its text (correctly rounded,
// overflow detected) instead of through a double, and an integer field can
// tell 2 from 2.5. Object members stay in file order, duplicates included, so
// the reader can name them. nlohmann::json parses; it stays out of this header.
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace plab {

struct JsonNode {
    enum class Kind { null, boolean, integer, number, string, array, object };
    Kind kind = Kind::null;
    bool boolean = false;
    std::string text;  // a string's value; a number's text (integer: its decimal digits)
    std::vector<JsonNode> items;
    std::vector<std::pair<std::string, JsonNode>> members;

    // The first member named `key`, or nullptr.
    const JsonNode* find(std::string_view key) const;
};

// Arrays and objects nest at most this deep; deeper is an error.
inline constexpr std::size_t kMaxJsonDepth = 64;

// Throws plab::Error "SOURCE:LINE:COLUMN: invalid JSON: ..." on a syntax error
// (no "SOURCE:" when source is empty), and on nesting past kMaxJsonDepth.
JsonNode parse_json(std::string_view text, std::string_view source);

// `s` as a JSON string literal, quotes included.
std::string json_quote(std::string_view s);

// A node as compact JSON for an error message, cut to about 40 characters.
std::string json_excerpt(const JsonNode& node);

}  // namespace plab
