#include "engine/backend/cpu/subnormal_arithmetic.h"

#include <algorithm>
#include <atomic>
#include <chrono>

namespace plab::cpu {

namespace {

std::atomic<SubnormalArithmetic> chosen{SubnormalArithmetic::automatic};

// The best of a few timings of multiplying 1024 copies of x by 1 a few
// times: the operands and results stay x, subnormal or not.
double seconds_multiplying(float x) {
    alignas(64) float values[1024];
    std::fill(std::begin(values), std::end(values), x);
    volatile float one = 1.0f;  // unknown to the compiler: the loop must multiply
    const float factor = one;
    double best = 1e9;
    for (int attempt = 0; attempt < 5; ++attempt) {
        const auto start = std::chrono::steady_clock::now();
        for (int round = 0; round < 8; ++round)
            for (float& v : values) v *= factor;
        best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    volatile float sink = values[0];
    (void)sink;
    return best;
}

}  // namespace

bool subnormals_are_slow() {
    // 2^-140 is subnormal, 2^-60 an ordinary small number. A core with a
    // slow path is tens of times slower on the first; 3x leaves room for noise.
    return seconds_multiplying(0x1p-140f) > 3.0 * seconds_multiplying(0x1p-60f);
}

SubnormalArithmetic subnormal_arithmetic() {
    SubnormalArithmetic way = chosen.load(std::memory_order_relaxed);
    if (way != SubnormalArithmetic::automatic) return way;
    way = subnormals_are_slow() ? SubnormalArithmetic::exact_lanes : SubnormalArithmetic::hardware;
    chosen.store(way, std::memory_order_relaxed);
    return way;
}

void set_subnormal_arithmetic(SubnormalArithmetic way) { chosen.store(way, std::memory_order_relaxed); }

const char* subnormal_arithmetic_name(SubnormalArithmetic way) {
    switch (way) {
        case SubnormalArithmetic::automatic: return "automatic";
        case SubnormalArithmetic::hardware: return "hardware";
        case SubnormalArithmetic::exact_lanes: return "exact-lanes";
    }
    return "?";
}

}  // namespace plab::cpu
