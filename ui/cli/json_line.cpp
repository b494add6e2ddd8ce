#include "ui/cli/json_line.h"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace plab {

void append_json_string(std::string& out, std::string_view value) {
    static constexpr char kHex[] = "0123456789abcdef";
    out += '"';
    const bool plain = std::all_of(value.begin(), value.end(), [](char c) {
        return c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20;
    });
    if (plain) {  // the common case: nothing to escape, one append
        out.append(value);
        out += '"';
        return;
    }
    for (char c : value) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += c;
        } else if (u < 0x20) {
            out += "\\u00";
            out += kHex[u >> 4];
            out += kHex[u & 0xf];
        } else {
            out += c;
        }
    }
    out += '"';
}

JsonLine::JsonLine(std::string& out) : out_(out) { out_ += '{'; }
JsonLine::~JsonLine() { out_ += "}\n"; }

void JsonLine::key(std::string_view k) {
    if (!first_) out_ += ',';
    first_ = false;
    append_json_string(out_, k);
    out_ += ':';
}

JsonLine& JsonLine::number(std::string_view k, double value) {
    if (std::isnan(value)) return string(k, "nan");
    if (std::isinf(value)) return string(k, value < 0 ? "-inf" : "inf");
    key(k);
    char buf[32];
    out_.append(buf, std::to_chars(buf, buf + sizeof buf, value).ptr);
    return *this;
}

JsonLine& JsonLine::integer(std::string_view k, std::int64_t value) {
    key(k);
    char buf[24];
    out_.append(buf, std::to_chars(buf, buf + sizeof buf, value).ptr);
    return *this;
}

JsonLine& JsonLine::boolean(std::string_view k, bool value) {
    key(k);
    out_ += value ? "true" : "false";
    return *this;
}

JsonLine& JsonLine::string(std::string_view k, std::string_view value) {
    key(k);
    append_json_string(out_, value);
    return *this;
}

JsonLine& JsonLine::null(std::string_view k) {
    key(k);
    out_ += "null";
    return *this;
}

}  // namespace plab
