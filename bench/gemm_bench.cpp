// The CPU backend's fixed-order GEMM (both kernels) beside OpenBLAS sgemm
// (one thread, the kernel OpenBLAS picks for this CPU) on the shapes one
// training step of the default preset runs (batch 128 through 2-64-64-3),
// plus a square 256^3: compare items_per_second (multiply-adds) within one run.
//   build/dev/bench/gemm_bench --benchmark_min_time=0.2
#include <benchmark/benchmark.h>
#include <cblas.h>

#include <random>
#include <vector>

#include "engine/backend/cpu/fixed_order_gemm.h"

namespace {

struct Case {
    int m, n, k;
    bool ta, tb;
};

// Forward x W^T is how Linear runs (weights stored out x in); backward takes
// dY W and X^T dY.
const Case kCases[] = {
    {128, 64, 2, false, true},    // fc1 forward
    {128, 64, 64, false, true},   // fc2 forward
    {128, 3, 64, false, true},    // fc3 forward
    {128, 64, 3, false, false},   // fc3 input grad
    {64, 64, 128, true, false},   // fc2 weight grad
    {256, 256, 256, false, false},
};

std::vector<float> random_floats(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<float> d(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (auto& x : v) x = d(rng);
    return v;
}

void run(benchmark::State& state, bool openblas, bool portable) {
    const Case& c = kCases[state.range(0)];
    const auto a = random_floats(static_cast<std::size_t>(c.m) * c.k, 1);
    const auto b = random_floats(static_cast<std::size_t>(c.k) * c.n, 2);
    std::vector<float> out(static_cast<std::size_t>(c.m) * c.n), scratch;
    plab::cpu::detail::force_portable_gemm(portable);
    openblas_set_num_threads(1);
    for (auto _ : state) {
        if (openblas)
            cblas_sgemm(CblasRowMajor, c.ta ? CblasTrans : CblasNoTrans, c.tb ? CblasTrans : CblasNoTrans, c.m, c.n,
                        c.k, 1.0f, a.data(), c.ta ? c.m : c.k, b.data(), c.tb ? c.k : c.n, 0.0f, out.data(), c.n);
        else
            plab::cpu::fixed_order_gemm({c.m, c.n, c.k, c.ta, c.tb}, 1.0f, a.data(), b.data(), 0.0f, out.data(),
                                        scratch);
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    plab::cpu::detail::force_portable_gemm(false);
    state.SetItemsProcessed(state.iterations() * c.m * c.n * c.k);
    state.SetLabel(std::to_string(c.m) + "x" + std::to_string(c.n) + "x" + std::to_string(c.k) + (c.ta ? " ta" : "") +
                   (c.tb ? " tb" : ""));
}

}  // namespace

BENCHMARK_CAPTURE(run, fixed_order, false, false)->DenseRange(0, std::size(kCases) - 1);
BENCHMARK_CAPTURE(run, fixed_order_portable, false, true)->DenseRange(0, std::size(kCases) - 1);
BENCHMARK_CAPTURE(run, openblas_sgemm, true, false)->DenseRange(0, std::size(kCases) - 1);
BENCHMARK_MAIN();
