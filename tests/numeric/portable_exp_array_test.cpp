// The array exp against the scalar portable_exp, bit for bit: every path this
// CPU runs, over a stride through all FP32 bit patterns (both signs, every
// binade, NaN payloads, infinities), every value near the edges where the
// scalar answers early (89, -104) and where k changes, and every array length
// up to 9 so the tails are covered.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <vector>

#include "engine/numeric/portable_exp_array.h"
#include "engine/numeric/portable_math.h"
#include "engine/numeric/scalar_cast.h"

namespace plab {
namespace {

std::vector<ExpPath> paths_here() {
    std::vector<ExpPath> out;
    for (ExpPath p : {ExpPath::portable, ExpPath::avx2})
        if (cpu_supports(p)) out.push_back(p);
    return out;
}

// How many x give other bits than the scalar function (NaNs compared as bits).
std::size_t mismatches(ExpPath path, const std::vector<float>& x) {
    std::vector<float> y(x.size());
    portable_exp_array(path, x.data(), y.data(), x.size());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < x.size(); ++i) bad += float_bits(y[i]) != float_bits(portable_exp(x[i]));
    return bad;
}

std::vector<float> edge_values() {
    std::vector<float> x;
    for (float centre : {89.0f, -104.0f, 88.72284f, -103.97208f, 0.0f, 0.34657359f, -0.34657359f})
        for (int step = -300; step <= 300; ++step) {
            float v = centre;
            for (int i = 0; i < std::abs(step); ++i) v = std::nextafter(v, step > 0 ? 1e30f : -1e30f);
            x.push_back(v);
        }
    for (std::uint32_t bits : {0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00001u, 0x7f800001u, 0x00000001u,
                               0x80000001u, 0x80000000u})
        x.push_back(bits_float(bits));
    return x;
}

TEST(PortableExpArray, EveryPathMatchesTheScalarOverAStrideOfAllInputs) {
    std::vector<float> x;
    for (std::uint64_t u = 0; u < (std::uint64_t{1} << 32); u += 4099) x.push_back(bits_float(static_cast<std::uint32_t>(u)));
    // Densely through the range that is neither 0 nor Inf, where the arithmetic happens.
    for (std::uint64_t u = 0; u < (std::uint64_t{1} << 32); u += 37) {
        const float v = bits_float(static_cast<std::uint32_t>(u));
        if (v > -105.0f && v < 90.0f && std::fabs(v) > 1e-8f) x.push_back(v);
    }
    ASSERT_GT(x.size(), 15'000'000u);
    for (ExpPath path : paths_here()) EXPECT_EQ(mismatches(path, x), 0u) << "path " << static_cast<int>(path);
}

TEST(PortableExpArray, EdgesSpecialsAndTailsMatchTheScalar) {
    const std::vector<float> edges = edge_values();
    for (ExpPath path : paths_here()) {
        EXPECT_EQ(mismatches(path, edges), 0u);
        for (std::size_t n = 0; n <= 9; ++n) {
            std::vector<float> x(edges.begin(), edges.begin() + static_cast<std::ptrdiff_t>(n));
            EXPECT_EQ(mismatches(path, x), 0u) << n;
        }
    }
    std::vector<float> in_place = edges;
    portable_exp_array(in_place.data(), in_place.data(), in_place.size());
    for (std::size_t i = 0; i < edges.size(); ++i)
        ASSERT_EQ(float_bits(in_place[i]), float_bits(portable_exp(edges[i]))) << edges[i];
}

TEST(PortableExpArray, TheBestPathIsTheVectorOneWhereTheCpuHasIt) {
    EXPECT_EQ(best_exp_path(), cpu_supports(ExpPath::avx2) ? ExpPath::avx2 : ExpPath::portable);
}

}  // namespace
}  // namespace plab
