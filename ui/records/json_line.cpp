#include "ui/records/json_line.h"

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
    if (first_.back() == '0') out_ += ',';
    first_.back() = '0';
    if (k.empty()) return;  // an array element
    append_json_string(out_, k);
    out_ += ':';
}

template <typename T>
JsonLine& JsonLine::write_number(std::string_view k, T value) {
    if (std::isnan(value)) return string(k, "nan");
    if (std::isinf(value)) return string(k, value < 0 ? "-inf" : "inf");
    key(k);
    char buf[32];
    out_.append(buf, std::to_chars(buf, buf + sizeof buf, value).ptr);
    return *this;
}

JsonLine& JsonLine::number(std::string_view k, double value) { return write_number(k, value); }
JsonLine& JsonLine::number(std::string_view k, float value) { return write_number(k, value); }

JsonLine& JsonLine::raw(std::string_view k, std::string_view json) {
    key(k);
    out_.append(json);
    return *this;
}

JsonLine& JsonLine::begin_object(std::string_view k) {
    key(k);
    out_ += '{';
    first_ += '1';
    return *this;
}

JsonLine& JsonLine::end_object() {
    first_.pop_back();
    out_ += '}';
    return *this;
}

JsonLine& JsonLine::begin_array(std::string_view k) {
    key(k);
    out_ += '[';
    first_ += '1';
    return *this;
}

JsonLine& JsonLine::end_array() {
    first_.pop_back();
    out_ += ']';
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
