#include "engine/train/preset_json.h"

#include <nlohmann/json.hpp>

#include "engine/common/error.h"

namespace plab {

namespace {

using Json = nlohmann::json;

// nlohmann's SAX events into a JsonNode tree. The stack holds the open
// containers; each is the last element of its parent, which is not touched
// until it closes, so the pointers stay valid.
class TreeBuilder {
public:
    explicit TreeBuilder(JsonNode& root) : root_(root) {}

    bool null() { return value(JsonNode{}); }
    bool boolean(bool b) { return value(JsonNode{JsonNode::Kind::boolean, b, {}, {}, {}}); }
    bool number_integer(Json::number_integer_t x) { return number(JsonNode::Kind::integer, std::to_string(x)); }
    bool number_unsigned(Json::number_unsigned_t x) { return number(JsonNode::Kind::integer, std::to_string(x)); }
    bool number_float(Json::number_float_t, const Json::string_t& text) { return number(JsonNode::Kind::number, text); }
    bool string(Json::string_t& s) { return value(JsonNode{JsonNode::Kind::string, false, s, {}, {}}); }
    bool binary(Json::binary_t&) { return false; }  // JSON text has no binary values
    bool start_object(std::size_t) { return open(JsonNode::Kind::object); }
    bool key(Json::string_t& k) {
        stack_.back()->members.emplace_back(k, JsonNode{});
        return true;
    }
    bool end_object() { return close(); }
    bool start_array(std::size_t) { return open(JsonNode::Kind::array); }
    bool end_array() { return close(); }
    bool parse_error(std::size_t position, const std::string&, const nlohmann::detail::exception& e) {
        error_position_ = position;
        error_ = e.what();
        return false;
    }

    std::size_t error_position() const { return error_position_; }
    bool too_deep() const { return too_deep_; }
    const std::string& error() const { return error_; }

private:
    JsonNode& place(JsonNode node) {
        if (stack_.empty()) return root_ = std::move(node);
        JsonNode& parent = *stack_.back();
        if (parent.kind == JsonNode::Kind::array) return parent.items.emplace_back(std::move(node));
        return parent.members.back().second = std::move(node);
    }
    bool value(JsonNode node) {
        place(std::move(node));
        return true;
    }
    bool number(JsonNode::Kind kind, std::string text) { return value(JsonNode{kind, false, std::move(text), {}, {}}); }
    bool open(JsonNode::Kind kind) {
        // A preset is four levels deep. Past the bound the parse stops: a tree
        // hundreds of thousands deep would overflow the stack when freed.
        if (stack_.size() >= kMaxJsonDepth) {
            too_deep_ = true;
            return false;
        }
        stack_.push_back(&place(JsonNode{kind, false, {}, {}, {}}));
        return true;
    }
    bool close() {
        stack_.pop_back();
        return true;
    }

    JsonNode& root_;
    std::vector<JsonNode*> stack_;
    std::size_t error_position_ = 0;
    std::string error_;
    bool too_deep_ = false;
};

// nlohmann says "[json.exception.parse_error.101] parse error at line 3,
// column 8: syntax error while parsing value - unexpected '}'; ..." or
// "[json.exception.out_of_range.406] number overflow parsing '1e309'": keep
// what follows the exception's id and position, the part that helps.
std::string error_detail(const std::string& what) {
    std::string detail = what;
    if (detail.rfind("[json.exception.", 0) == 0) detail = detail.substr(detail.find("] ") + 2);
    const std::size_t column = detail.find("column ");
    if (column == std::string::npos) return detail;
    const std::size_t colon = detail.find(": ", column);
    return colon == std::string::npos ? detail : detail.substr(colon + 2);
}

// `position` counts the characters read, the offending one included.
std::string line_and_column(std::string_view text, std::size_t position) {
    const std::size_t index = std::min(position > 0 ? position - 1 : 0, text.size());
    std::size_t line = 1, line_start = 0;
    for (std::size_t i = 0; i < index; ++i)
        if (text[i] == '\n') {
            ++line;
            line_start = i + 1;
        }
    return std::to_string(line) + ":" + std::to_string(index - line_start + 1);
}

void append_excerpt(const JsonNode& node, std::string& out) {
    switch (node.kind) {
        case JsonNode::Kind::null: out += "null"; return;
        case JsonNode::Kind::boolean: out += node.boolean ? "true" : "false"; return;
        case JsonNode::Kind::integer:
        case JsonNode::Kind::number: out += node.text; return;
        case JsonNode::Kind::string: out += json_quote(node.text); return;
        case JsonNode::Kind::array:
            out += '[';
            for (std::size_t i = 0; i < node.items.size() && out.size() < 64; ++i) {
                if (i > 0) out += ',';
                append_excerpt(node.items[i], out);
            }
            out += ']';
            return;
        case JsonNode::Kind::object:
            out += '{';
            for (std::size_t i = 0; i < node.members.size() && out.size() < 64; ++i) {
                if (i > 0) out += ',';
                out += json_quote(node.members[i].first) + ':';
                append_excerpt(node.members[i].second, out);
            }
            out += '}';
            return;
    }
}

}  // namespace

const JsonNode* JsonNode::find(std::string_view key) const {
    for (const auto& [k, v] : members)
        if (k == key) return &v;
    return nullptr;
}

JsonNode parse_json(std::string_view text, std::string_view source) {
    JsonNode root;
    TreeBuilder builder(root);
    if (!Json::sax_parse(text.begin(), text.end(), &builder)) {
        const std::string prefix = source.empty() ? "" : std::string(source) + ": ";
        if (builder.too_deep())
            throw Error(prefix + "invalid JSON: arrays and objects nested more than " + std::to_string(kMaxJsonDepth) +
                        " levels deep (a preset needs 4)");
        const std::string where = line_and_column(text, builder.error_position());
        throw Error((source.empty() ? "" : std::string(source) + ":") + where +
                    ": invalid JSON: " + error_detail(builder.error()));
    }
    return root;
}

std::string json_quote(std::string_view s) {
    return Json(std::string(s)).dump(-1, ' ', false, Json::error_handler_t::replace);
}

std::string json_excerpt(const JsonNode& node) {
    std::string out;
    append_excerpt(node, out);
    constexpr std::size_t kMax = 40;
    if (out.size() > kMax) out = out.substr(0, kMax - 3) + "...";
    return out;
}

}  // namespace plab
