#pragma once
// "Did you mean": the allowed name closest to a mistyped one.
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace plab {

// Levenshtein distance: the fewest single-character edits from a to b.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The name nearest to `wanted`, when it is a likely typo of it: at most two
// edits away, and at most half of `wanted`'s length.
std::optional<std::string> nearest_name(std::string_view wanted, const std::vector<std::string>& names);

}  // namespace plab
