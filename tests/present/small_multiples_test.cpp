// How many small charts side by side: one row up to three, about square
// beyond, at most six.
#include <gtest/gtest.h>

#include "ui/present/small_multiples.h"

namespace plab {
namespace {

TEST(SmallMultiples, ColumnsGrowWithTheChartsUpToSix) {
    const std::vector<std::pair<std::size_t, int>> want = {{0, 1},  {1, 1},  {3, 3},  {4, 2},  {5, 3}, {9, 3},
                                                           {10, 4}, {13, 4}, {25, 5}, {26, 6}, {60, 6}};
    for (const auto& [charts, columns] : want) EXPECT_EQ(small_multiple_columns(charts), columns) << charts;
}

}  // namespace
}  // namespace plab
