#include "engine/numeric/value_text.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

#include "engine/common/error.h"
#include "engine/numeric/scalar_cast.h"

namespace plab {

namespace {

bool equals_ignoring_case(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
    return true;
}

// [+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?
bool is_decimal(std::string_view s) {
    std::size_t i = 0;
    auto digits = [&] {
        const std::size_t start = i;
        while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i;
        return i - start;
    };
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    std::size_t mantissa_digits = digits();
    if (i < s.size() && s[i] == '.') {
        ++i;
        mantissa_digits += digits();
    }
    if (mantissa_digits == 0) return false;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
        if (digits() == 0) return false;
    }
    return i == s.size();
}

[[noreturn]] void reject(std::string_view text, std::string_view why) {
    throw Error("cannot read '" + std::string(text) + "' as a value" + std::string(why) + "; expected " +
                fp32_value_syntax());
}

float parse_hex_bits(std::string_view text) {
    const std::string_view digits = text.substr(2);
    if (digits.size() != 8) reject(text, ": FP32 bits need exactly 8 hex digits after 0x");
    std::uint32_t bits = 0;
    for (char c : digits) {
        const int v = std::isdigit(static_cast<unsigned char>(c)) ? c - '0'
                      : (c >= 'a' && c <= 'f')                    ? c - 'a' + 10
                      : (c >= 'A' && c <= 'F')                    ? c - 'A' + 10
                                                                  : -1;
        if (v < 0) reject(text, ": '" + std::string(1, c) + "' is not a hex digit");
        bits = bits << 4 | static_cast<std::uint32_t>(v);
    }
    return bits_float(bits);
}

// Correctly rounded to FP32, independent of the C locale (Qt sets it from the
// environment, where a comma may be the decimal point).
float parse_decimal(std::string_view text) {
    const char* first = text.data();
    const char* last = first + text.size();
    if (*first == '+') ++first;  // from_chars takes '-' only
    float value = 0.0f;
    if (std::from_chars(first, last, value).ec == std::errc{}) return value;

    // Out of FP32's range: it rounds to +-Inf (huge) or +-0 (tiny), as in a tensor.
    const bool negative = text[0] == '-';
    double wide = 0.0;
    bool huge = false;
    if (std::from_chars(first, last, wide).ec == std::errc{})
        huge = std::fabs(wide) >= 1.0;
    else
        huge = text.find("e-") == std::string_view::npos && text.find("E-") == std::string_view::npos;
    const float magnitude = huge ? std::numeric_limits<float>::infinity() : 0.0f;
    return negative ? -magnitude : magnitude;
}

}  // namespace

std::string fp32_value_syntax() {
    return "a decimal or scientific number (0.1, -3, 6.1e-5), inf, -inf, nan, or FP32 bits as 0x plus 8 hex digits "
           "(0x3f800000)";
}

float parse_fp32_value(std::string_view text) {
    if (text.empty()) reject(text, ": it is empty");
    if (text.size() > 1 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) return parse_hex_bits(text);

    const bool negative = text[0] == '-';
    const std::string_view word = (text[0] == '-' || text[0] == '+') ? text.substr(1) : text;
    if (equals_ignoring_case(word, "inf") || equals_ignoring_case(word, "infinity"))
        return negative ? -std::numeric_limits<float>::infinity() : std::numeric_limits<float>::infinity();
    if (equals_ignoring_case(word, "nan")) {
        const float nan = std::numeric_limits<float>::quiet_NaN();
        return negative ? -nan : nan;
    }
    if (!is_decimal(text)) reject(text, "");

    return parse_decimal(text);
}

}  // namespace plab
