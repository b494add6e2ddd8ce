#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

#include "engine/common/error.h"
#include "ui/present/plot_columns.h"

namespace plab {
namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

void expect_columns(const std::vector<ColumnRange>& got, const std::vector<ColumnRange>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got[i].x, want[i].x) << "column " << i;
        EXPECT_EQ(got[i].lo, want[i].lo) << "column " << i;
        EXPECT_EQ(got[i].hi, want[i].hi) << "column " << i;
    }
}

// Ten samples over [0, 10] in five columns two units wide.
TEST(MinMaxColumns, SpikeKeptNanSkippedOutsideLeftOutEmptyOmitted) {
    const std::vector<double> x = {-1, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 10.5};
    const std::vector<double> v = {1000, 1, 2, 3, 100, 5, 6, kNaN, kNaN, 9, 10, 11, -1000};
    const auto got = min_max_columns(x, v, v, 0, 10, 5);
    expect_columns(got, {{1, 1, 2},      // x 0, 1
                         {3, 3, 100},    // x 2, 3: the spike survives
                         {5, 5, 6},      // x 4, 5
                                         // x 6, 7: only NaN, column omitted
                         {9, 9, 11}});   // x 8, 9 and x_max itself
}

TEST(MinMaxColumns, OneNanEndLeavesTheOther) {
    const std::vector<double> x = {0.5, 1.5, 2.5, 5.5};
    const std::vector<double> lo = {kNaN, 2, kNaN, 3};
    const std::vector<double> hi = {4, kNaN, kNaN, kNaN};
    // Column [0, 4): the first sample counts as 4, the second as 2, the third
    // not at all. Column [4, 8): its one sample counts as 3 at both ends.
    expect_columns(min_max_columns(x, lo, hi, 0, 8, 2), {{2, 2, 4}, {6, 3, 3}});
}

TEST(MinMaxColumns, InfinitiesAreKept) {
    const double inf = std::numeric_limits<double>::infinity();
    const std::vector<double> x = {0, 1};
    const std::vector<double> lo = {-inf, 3};
    const std::vector<double> hi = {5, inf};
    expect_columns(min_max_columns(x, lo, hi, 0, 2, 1), {{1, -inf, inf}});
}

TEST(MinMaxColumns, CentresOfFractionalColumns) {
    // Columns a quarter wide over [100, 101]: centres 100.125, 100.375, ...
    const std::vector<double> x = {100, 100.3, 100.99};
    const std::vector<double> v = {7, 8, 9};
    expect_columns(min_max_columns(x, v, v, 100, 101, 4), {{100.125, 7, 7}, {100.375, 8, 8}, {100.875, 9, 9}});
}

TEST(MinMaxColumns, EmptyInputGivesNoColumns) {
    EXPECT_TRUE(min_max_columns({}, {}, {}, 0, 1, 10).empty());
}

TEST(MinMaxColumns, RejectsBadArguments) {
    const std::vector<double> two = {1, 2};
    const std::vector<double> one = {1};
    EXPECT_THROW(min_max_columns(two, one, two, 0, 1, 1), Error);
    EXPECT_THROW(min_max_columns(two, two, one, 0, 1, 1), Error);
    EXPECT_THROW(min_max_columns(two, two, two, 0, 1, 0), Error);
    EXPECT_THROW(min_max_columns(two, two, two, 1, 1, 4), Error);
    EXPECT_THROW(min_max_columns(two, two, two, 2, 1, 4), Error);
    EXPECT_THROW(min_max_columns(two, two, two, 0, kNaN, 4), Error);
}

// Integer steps 1..N against a brute force that assigns columns in integer
// arithmetic (column = floor(step * columns / steps)), so no rounding can
// make the two agree by accident.
TEST(MinMaxColumns, MatchesIntegerBruteForce) {
    constexpr std::int64_t kSteps = 10007;
    constexpr int kColumns = 1600;
    std::mt19937 rng(7);
    std::normal_distribution<double> noise(0, 1);
    std::vector<double> x, lo, hi;
    for (std::int64_t s = 1; s <= kSteps; ++s) {
        x.push_back(static_cast<double>(s));
        const double a = noise(rng);
        const double b = a + std::abs(noise(rng));
        lo.push_back(s % 97 == 0 ? kNaN : a);
        hi.push_back(s % 89 == 0 ? kNaN : b);
    }
    std::vector<double> want_lo(kColumns, std::numeric_limits<double>::infinity());
    std::vector<double> want_hi(kColumns, -std::numeric_limits<double>::infinity());
    for (std::int64_t s = 1; s <= kSteps; ++s) {
        const auto c = static_cast<std::size_t>(std::min<std::int64_t>(kColumns - 1, s * kColumns / kSteps));
        for (double v : {lo[s - 1], hi[s - 1]}) {
            if (std::isnan(v)) continue;
            want_lo[c] = std::min(want_lo[c], v);
            want_hi[c] = std::max(want_hi[c], v);
        }
    }
    const auto got = min_max_columns(x, lo, hi, 0, kSteps, kColumns);
    ASSERT_EQ(got.size(), static_cast<std::size_t>(kColumns));  // about 6 steps a column: none empty
    for (std::size_t c = 0; c < got.size(); ++c) {
        EXPECT_DOUBLE_EQ(got[c].x, (static_cast<double>(c) + 0.5) * kSteps / kColumns) << c;
        EXPECT_EQ(got[c].lo, want_lo[c]) << c;
        EXPECT_EQ(got[c].hi, want_hi[c]) << c;
    }
}

TEST(ColumnPolyline, LoThenHiPerColumn) {
    const std::vector<XY> line = column_polyline({{1, 2, 3}, {5, -1, -1}});
    ASSERT_EQ(line.size(), 4u);
    const double want[4][2] = {{1, 2}, {1, 3}, {5, -1}, {5, -1}};
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(line[i].x, want[i][0]) << i;
        EXPECT_EQ(line[i].y, want[i][1]) << i;
    }
    EXPECT_TRUE(column_polyline({}).empty());
}

TEST(Log10Points, TakesTheLogOfYOnlyAndKeepsZeroAndNegativesVisibleAsNonFinite) {
    const std::vector<XY> in{{1, 100}, {2, 1}, {3, 0.001}, {4, 0}, {5, -1}};
    const std::vector<XY> out = log10_points(in);
    ASSERT_EQ(out.size(), in.size());
    for (std::size_t i = 0; i < in.size(); ++i) EXPECT_EQ(out[i].x, in[i].x);
    EXPECT_DOUBLE_EQ(out[0].y, 2);
    EXPECT_EQ(out[1].y, 0);
    EXPECT_DOUBLE_EQ(out[2].y, -3);
    EXPECT_EQ(out[3].y, -std::numeric_limits<double>::infinity());
    EXPECT_TRUE(std::isnan(out[4].y));
}

}  // namespace
}  // namespace plab
