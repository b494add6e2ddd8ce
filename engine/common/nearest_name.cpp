#include "engine/common/nearest_name.h"

#include <algorithm>

namespace plab {

std::size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<std::size_t> row(b.size() + 1);
    for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i) {
        std::size_t diagonal = row[0];
        row[0] = i;
        for (std::size_t j = 1; j <= b.size(); ++j) {
            const std::size_t above = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

std::optional<std::string> nearest_name(std::string_view wanted, const std::vector<std::string>& names) {
    const auto nearest = std::min_element(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
        return edit_distance(wanted, a) < edit_distance(wanted, b);
    });
    if (nearest == names.end() || edit_distance(wanted, *nearest) > std::min<std::size_t>(2, wanted.size() / 2))
        return std::nullopt;
    return *nearest;
}

}  // namespace plab
