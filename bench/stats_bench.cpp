// Throughput of the telemetry scans (engine/telemetry/tensor_stats*), per path,
// with two anchors over the same elements: memcpy and a plain FP32 sum.
// Compare items_per_second within one run.
//   build/dev/bench/stats_bench --benchmark_min_time=0.2
// Sizes: 4096 (a typical tensor of the lab's MLPs, in L1) and 2^20 (L2/L3).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_inputs.h"
#include "engine/telemetry/tensor_stats.h"
#include "engine/telemetry/tensor_stats_path.h"

namespace {

constexpr std::size_t kMaxElements = plab::bench::kInputElements;

const std::vector<float>& inputs() { return plab::bench::gradient_like_inputs(); }

void set_items(benchmark::State& state, std::size_t n) {
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
}

void memcpy_anchor(benchmark::State& state, std::size_t n) {
    const auto& in = inputs();
    std::vector<float> out(n);
    for (auto _ : state) {
        std::memcpy(out.data(), in.data(), n * sizeof(float));
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
    }
    set_items(state, n);
}

// What a plain loop costs: one FP32 add per element, in order (not vectorised).
void sum_anchor(benchmark::State& state, std::size_t n) {
    const auto& in = inputs();
    for (auto _ : state) {
        float s = 0;
        for (std::size_t i = 0; i < n; ++i) s += in[i];
        benchmark::DoNotOptimize(s);
    }
    set_items(state, n);
}

void stats(benchmark::State& state, std::size_t n, plab::StatsPath path, double divisor) {
    const auto& in = inputs();
    for (auto _ : state) {
        plab::TensorStats s = plab::compute_tensor_stats(in.data(), n, divisor, path);
        benchmark::DoNotOptimize(s);
    }
    set_items(state, n);
}

// A gradient and its unscaled view in one pass (what telemetry runs per step).
void stats_pair(benchmark::State& state, std::size_t n, plab::StatsPath path, double divisor) {
    const auto& in = inputs();
    for (auto _ : state) {
        plab::TensorStatsPair s = plab::compute_tensor_stats_pair(in.data(), n, divisor, path);
        benchmark::DoNotOptimize(s);
    }
    set_items(state, n);
}

// Post-ReLU activations: half exact zeros, the rest of order one.
const std::vector<float>& relu_inputs() {
    static const std::vector<float> v = [] {
        std::mt19937 rng(2);
        std::normal_distribution<float> gauss(0.0f, 1.0f);
        std::vector<float> x(kMaxElements);
        for (auto& e : x) e = std::max(gauss(rng), 0.0f);
        return x;
    }();
    return v;
}

void stats_relu(benchmark::State& state, std::size_t n, plab::StatsPath path) {
    const auto& in = relu_inputs();
    for (auto _ : state) {
        plab::TensorStats s = plab::compute_tensor_stats(in.data(), n, 1.0, path);
        benchmark::DoNotOptimize(s);
    }
    set_items(state, n);
}

void finite_amax(benchmark::State& state, std::size_t n) {
    const auto& in = inputs();
    for (auto _ : state) benchmark::DoNotOptimize(plab::finite_amax(in.data(), n));
    set_items(state, n);
}

void histogram(benchmark::State& state, std::size_t n, double divisor) {
    const auto& in = inputs();
    plab::Log2Histogram h;
    for (auto _ : state) {
        plab::add_to_histogram(in.data(), n, divisor, h);
        benchmark::DoNotOptimize(h);
    }
    set_items(state, n);
}

void register_all() {
    for (std::size_t n : {std::size_t{4096}, kMaxElements}) {
        const std::string size = "/" + std::to_string(n);
        benchmark::RegisterBenchmark(("memcpy" + size).c_str(), memcpy_anchor, n);
        benchmark::RegisterBenchmark(("sum_fp32" + size).c_str(), sum_anchor, n);
        for (plab::StatsPath p : plab::available_stats_paths()) {
            const std::string name = std::string(plab::stats_path_name(p));
            benchmark::RegisterBenchmark(("stats/" + name + size).c_str(), stats, n, p, 1.0);
            benchmark::RegisterBenchmark(("stats_unscaled/" + name + size).c_str(), stats, n, p, 65536.0);
            benchmark::RegisterBenchmark(("stats_pair/" + name + size).c_str(), stats_pair, n, p, 65536.0);
            benchmark::RegisterBenchmark(("stats_relu/" + name + size).c_str(), stats_relu, n, p);
        }
        benchmark::RegisterBenchmark(("finite_amax" + size).c_str(), finite_amax, n);
        benchmark::RegisterBenchmark(("histogram" + size).c_str(), histogram, n, 1.0);
        benchmark::RegisterBenchmark(("histogram_unscaled" + size).c_str(), histogram, n, 3.0);
    }
}

}  // namespace

int main(int argc, char** argv) {
    benchmark::Initialize(&argc, argv);
    register_all();
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
