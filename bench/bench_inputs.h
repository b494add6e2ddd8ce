#pragma once
// The inputs the benchmarks share: 2^20 FP32 values of gradient-like
// magnitude (normal * 0.01, seed 1), so cast and stats figures are taken on
// the same data.
#include <cstddef>
#include <random>
#include <vector>

namespace plab::bench {

inline constexpr std::size_t kInputElements = std::size_t{1} << 20;  // 4 MiB of FP32: L2/L3-sized

inline const std::vector<float>& gradient_like_inputs() {
    static const std::vector<float> v = [] {
        std::mt19937 rng(1);
        std::normal_distribution<float> gauss(0.0f, 1.0f);
        std::vector<float> x(kInputElements);
        for (auto& e : x) e = gauss(rng) * 0.01f;
        return x;
    }();
    return v;
}

}  // namespace plab::bench
