// parallel_slices hands every index to exactly one slice, in contiguous
// slices that cover [0, n) in order, from any number of callers at once and
// from inside a slice; and the GEMM split over slices gives the bits of the
// unsplit portable kernel.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include "engine/backend/cpu/fixed_order_gemm.h"
#include "engine/backend/cpu/parallel_slices.h"
#include "engine/data/random.h"

namespace plab::cpu {
namespace {

// The slices one call made, sorted, and how often each index was visited.
struct Coverage {
    std::vector<std::pair<std::size_t, std::size_t>> slices;
    std::vector<int> visits;
};

Coverage cover(std::size_t n, std::size_t min_slice) {
    Coverage c;
    c.visits.assign(n, 0);
    std::mutex m;
    parallel_slices(n, min_slice, [&](std::size_t begin, std::size_t end) {
        for (std::size_t i = begin; i < end; ++i) ++c.visits[i];  // disjoint slices: no race
        const std::lock_guard lock(m);
        c.slices.emplace_back(begin, end);
    });
    std::sort(c.slices.begin(), c.slices.end());
    return c;
}

void expect_exact_cover(const Coverage& c, std::size_t n, std::size_t min_slice) {
    EXPECT_TRUE(std::all_of(c.visits.begin(), c.visits.end(), [](int v) { return v == 1; })) << n;
    ASSERT_FALSE(c.slices.empty());
    EXPECT_LE(c.slices.size(), slice_threads());
    EXPECT_EQ(c.slices.front().first, 0u);
    EXPECT_EQ(c.slices.back().second, n);
    for (std::size_t s = 0; s + 1 < c.slices.size(); ++s) EXPECT_EQ(c.slices[s].second, c.slices[s + 1].first);
    if (c.slices.size() > 1) {
        for (const auto& [begin, end] : c.slices) EXPECT_GE(end - begin, min_slice) << n;
    }
}

TEST(ParallelSlices, EveryIndexOnceInContiguousSlices) {
    for (std::size_t n : {0u, 1u, 7u, 100u, 1000u, 100000u})
        for (std::size_t min_slice : {1u, 10u, 1000u}) expect_exact_cover(cover(n, min_slice), n, min_slice);
}

TEST(ParallelSlices, SmallWorkStaysInOneSlice) {
    const Coverage c = cover(999, 1000);
    ASSERT_EQ(c.slices.size(), 1u);
    EXPECT_EQ(c.slices[0], std::make_pair(std::size_t{0}, std::size_t{999}));
}

TEST(ParallelSlices, ConcurrentCallersAndNestedCallsEachCoverTheirRange) {
    std::atomic<int> wrong{0};
    auto caller = [&] {
        for (int round = 0; round < 300; ++round) {
            std::vector<int> visits(5000, 0);
            parallel_slices(visits.size(), 100, [&](std::size_t begin, std::size_t end) {
                // A slice that calls an op: the inner call must run, alone, and cover its own range.
                std::vector<int> inner(64, 0);
                parallel_slices(inner.size(), 1, [&](std::size_t b, std::size_t e) {
                    for (std::size_t i = b; i < e; ++i) ++inner[i];
                });
                if (std::count(inner.begin(), inner.end(), 1) != 64) ++wrong;
                for (std::size_t i = begin; i < end; ++i) ++visits[i];
            });
            if (std::count(visits.begin(), visits.end(), 1) != 5000) ++wrong;
        }
    };
    std::thread a(caller), b(caller);
    caller();
    a.join();
    b.join();
    EXPECT_EQ(wrong.load(), 0);
}

TEST(ParallelSlices, ASplitGemmHasThePortableKernelsBits) {
    // Large enough to be split on any machine with two cores.
    const GemmShape shape{.m = 300, .n = 70, .k = 90, .trans_a = true, .trans_b = true};
    Rng rng(7);
    std::vector<float> a(static_cast<std::size_t>(shape.m) * shape.k), b(static_cast<std::size_t>(shape.k) * shape.n);
    for (float& x : a) x = static_cast<float>(rng.normal());
    for (float& x : b) x = static_cast<float>(rng.normal());
    std::vector<float> split(static_cast<std::size_t>(shape.m) * shape.n, 1.0f), whole = split, scratch;
    fixed_order_gemm(shape, 0.5f, a.data(), b.data(), 0.25f, split.data(), scratch);
    detail::force_portable_gemm(true);
    // One slice: a whole-tensor call from inside a slice runs alone.
    parallel_slices(1, 1, [&](std::size_t, std::size_t) {
        fixed_order_gemm(shape, 0.5f, a.data(), b.data(), 0.25f, whole.data(), scratch);
    });
    detail::force_portable_gemm(false);
    for (std::size_t i = 0; i < whole.size(); ++i) ASSERT_EQ(split[i], whole[i]) << i;
}

}  // namespace
}  // namespace plab::cpu
