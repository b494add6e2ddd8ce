#pragma once
// ASCII lower case, for the presenters' case-blind matching of names and
// guide text (a layer filter, a panel named in a guide).
#include <algorithm>
#include <cctype>
#include <string>
#include <string_view>

namespace plab {

inline std::string lower_case(std::string_view text) {
    std::string out(text);
    std::transform(out.begin(), out.end(), out.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return out;
}

}  // namespace plab
