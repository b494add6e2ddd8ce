#include "engine/common/number_text.h"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace plab {

namespace {

template <typename T>
std::string shortest(T x) {
    if (std::isnan(x)) return std::signbit(x) ? "-nan" : "nan";
    if (std::isinf(x)) return x < 0 ? "-inf" : "inf";
    char buf[64];
    const auto result = std::to_chars(buf, buf + sizeof buf, x);
    return std::string(buf, result.ptr);
}

// "2^e" for a power of two, else the shortest text of x in its own type.
template <typename T>
std::string power_of_two(T x) {
    int exponent = 0;
    if (std::isfinite(x) && x > 0 && std::frexp(x, &exponent) == T(0.5)) return "2^" + std::to_string(exponent - 1);
    return shortest(x);
}

}  // namespace

std::string shortest_text(float x) { return shortest(x); }
std::string shortest_text(double x) { return shortest(x); }

std::string significant_text(double x, int digits) {
    if (std::isnan(x)) return "nan";
    if (!std::isfinite(x)) return shortest_text(x);
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*g", digits, x);
    return buf;
}

std::string power_of_two_text(double x) { return power_of_two(x); }
std::string power_of_two_text(float x) { return power_of_two(x); }

std::string mib_text(std::size_t bytes) {
    char text[32];
    std::snprintf(text, sizeof text, "%.1f", static_cast<double>(bytes) / (1024.0 * 1024.0));
    return text;
}

std::string grouped_text(std::int64_t n) {
    const std::string digits = std::to_string(n);
    const std::size_t sign = n < 0 ? 1 : 0;
    std::string out = digits.substr(0, sign);
    for (std::size_t i = sign; i < digits.size(); ++i) {
        if (i > sign && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return out;
}

std::string decimal_bytes_text(double bytes) {
    char text[32];
    if (bytes >= 1e9)
        std::snprintf(text, sizeof text, "%.2f GB", bytes / 1e9);
    else if (bytes >= 1e6)
        std::snprintf(text, sizeof text, "%.2f MB", bytes / 1e6);
    else if (bytes >= 1e3)
        std::snprintf(text, sizeof text, "%.1f kB", bytes / 1e3);
    else
        std::snprintf(text, sizeof text, "%.0f B", bytes);
    return text;
}

}  // namespace plab
