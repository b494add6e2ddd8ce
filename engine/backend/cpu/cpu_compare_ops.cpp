// The twin comparison on the CPU backend: one pass, FP64 sums in a fixed
// order on every machine.
#include <cstddef>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/backend/cpu/cpu_tensor_ops.h"

namespace plab {

namespace {

// Element i goes into lane i % kLanes, and the lanes are combined pairwise at
// the end. One sum in index order is a chain of dependent FP64 adds, four
// cycles an element: a visible share of the default preset's step (its twin
// compares about 9 k weights and gradients a step; docs/perf.md), where the
// lanes vectorise.
constexpr std::size_t kLanes = 8;

struct LaneSums {
    double diff_sq[kLanes] = {};
    double a_sq[kLanes] = {};
    double b_sq[kLanes] = {};
    double dot[kLanes] = {};

    void add(std::size_t lane, double x, double y) {
        diff_sq[lane] += (x - y) * (x - y);
        a_sq[lane] += x * x;
        b_sq[lane] += y * y;
        dot[lane] += x * y;
    }

    TensorComparison combined() {
        for (std::size_t width = kLanes / 2; width > 0; width /= 2)
            for (std::size_t j = 0; j < width; ++j) {
                diff_sq[j] += diff_sq[j + width];
                a_sq[j] += a_sq[j + width];
                b_sq[j] += b_sq[j + width];
                dot[j] += dot[j + width];
            }
        TensorComparison c;
        c.diff_sq = diff_sq[0];
        c.a_sq = a_sq[0];
        c.b_sq = b_sq[0];
        c.dot = dot[0];
        return c;
    }
};

// Compiled for the widest vectors the CPU has: the lanes are the same on
// each, and as no product is fused into its add (ISO C++ mode contracts
// none), so are the bits.
#if defined(__x86_64__)
__attribute__((target_clones("avx512f", "avx2", "default")))
#endif
TensorComparison compare_values(const float* a, const float* b, std::size_t n) {
    LaneSums lanes;
    std::size_t i = 0;
    for (; i + kLanes <= n; i += kLanes)
        for (std::size_t j = 0; j < kLanes; ++j) lanes.add(j, a[i + j], b[i + j]);
    for (std::size_t j = 0; i + j < n; ++j) lanes.add(j, a[i + j], b[i + j]);
    return lanes.combined();
}

}  // namespace

TensorComparison CpuBackend::compare(const Tensor& a, const Tensor& b) {
    cpu::require_same_shape(a, b, "compare");
    return compare_values(a.host(), b.host(), a.size());
}

}  // namespace plab
