#pragma once
// Names of an enum's values for files and command lines: one table gives
// name(), parse() and the "a|b|c" list of choices for error messages.
#include <array>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace plab {

template <typename E, std::size_t N>
class EnumNames {
public:
    constexpr explicit EnumNames(std::array<std::pair<E, std::string_view>, N> entries) : entries_(entries) {}

    constexpr std::string_view name(E value) const {
        for (const auto& [v, n] : entries_)
            if (v == value) return n;
        return "?";
    }

    constexpr std::optional<E> parse(std::string_view text) const {
        for (const auto& [v, n] : entries_)
            if (n == text) return v;
        return std::nullopt;
    }

    std::string choices() const {
        std::string out;
        for (const auto& entry : entries_) {
            if (!out.empty()) out += '|';
            out += entry.second;
        }
        return out;
    }

private:
    std::array<std::pair<E, std::string_view>, N> entries_;
};

}  // namespace plab
