#include "engine/common/error.h"

#include <cstdio>

namespace plab {

namespace {

constexpr std::size_t kHead = 400, kTail = 600;  // what stays of a message past kHead + kTail bytes

void append_printable(std::string& out, char c) {
    const auto u = static_cast<unsigned char>(c);
    if (c == '\n') {
        out += c;  // multi-line messages stay multi-line
    } else if (c == '\0') {
        out += "\\0";
    } else if (c == '\t') {
        out += "\\t";
    } else if (u < 0x20 || u == 0x7f) {
        char hex[5];
        std::snprintf(hex, sizeof hex, "\\x%02x", u);
        out += hex;
    } else {
        out += c;
    }
}

}  // namespace

std::string printable_message(const std::string& text) {
    std::string out;
    auto copy = [&](std::size_t from, std::size_t to) {
        for (std::size_t i = from; i < to; ++i) append_printable(out, text[i]);
    };
    if (text.size() <= kHead + kTail) {
        copy(0, text.size());
    } else {
        // Cut between UTF-8 characters, never inside one.
        auto continuation = [&](std::size_t i) { return (static_cast<unsigned char>(text[i]) & 0xc0) == 0x80; };
        std::size_t head = kHead, tail = text.size() - kTail;
        while (head > 0 && continuation(head)) --head;
        while (tail < text.size() && continuation(tail)) ++tail;
        copy(0, head);
        out += " [... " + std::to_string(tail - head) + " bytes not shown ...] ";
        copy(tail, text.size());
    }
    return out;
}

}  // namespace plab
