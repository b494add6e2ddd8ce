#include "ui/present/scale_text.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <string>

#include "engine/common/number_text.h"

namespace plab {

namespace {

std::string_view trimmed(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

// The whole of `s` as a number of type T; none when any of it is left over.
template <typename T>
std::optional<T> whole_number(std::string_view s) {
    s = trimmed(s);
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);  // from_chars takes '-' only
    T value{};
    const auto [end, error] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (s.empty() || error != std::errc() || end != s.data() + s.size()) return std::nullopt;
    return value;
}

}  // namespace

std::string scale_text(double scale) {
    const std::string power = power_of_two_text(scale);
    return power.rfind("2^", 0) == 0 ? power : significant_text(scale, 6);
}

std::optional<double> parse_scale_text(std::string_view text) {
    text = trimmed(text);
    if (text.rfind("2^", 0) == 0) {
        const std::optional<int> k = whole_number<int>(text.substr(2));
        if (!k) return std::nullopt;
        return std::ldexp(1.0, *k);
    }
    const std::optional<double> v = whole_number<double>(text);
    if (!v || !std::isfinite(*v)) return std::nullopt;
    return v;
}

std::optional<double> parse_power_of_two_scale(std::string_view text) {
    const std::optional<double> v = parse_scale_text(text);
    if (!v || *v <= 0.0) return std::nullopt;
    return std::ldexp(1.0, static_cast<int>(std::lround(std::log2(*v))));
}

}  // namespace plab
