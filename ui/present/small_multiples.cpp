#include "ui/present/small_multiples.h"

#include <algorithm>

namespace plab {

namespace {

constexpr std::size_t kOneRow = 3;
// Six small charts side by side still show where a histogram's mass sits on a 1000-pixel-wide panel.
constexpr std::size_t kMostColumns = 6;

}  // namespace

int small_multiple_columns(std::size_t charts) {
    if (charts <= kOneRow) return static_cast<int>(std::max<std::size_t>(charts, 1));
    std::size_t side = 1;
    while (side * side < charts) ++side;  // the smallest square that holds them
    return static_cast<int>(std::min(side, kMostColumns));
}

}  // namespace plab
