// The cost of redrawing the loss-scale and loss panels from a run's history,
// for a plot 1600 pixels wide: what the GUIs' 60 Hz timer pays per frame.
//   build/dev/bench/plot_bench --benchmark_min_time=0.2
// The target is <= 5 ms a redraw for 100k steps of history; the presenters
// read the RunLog's decimated series (at most 4096 points by default), so
// 1M steps should cost about the same as 100k.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "bench/synthetic_run.h"
#include "engine/train/run_log.h"
#include "ui/present/loss_curves.h"
#include "ui/present/plot_columns.h"
#include "ui/present/scale_trajectory.h"

namespace {

constexpr int kColumns = 1600;

const plab::RunLog& log_of(std::int64_t steps) { return plab::bench::synthetic_log_of(steps); }

void scale_trajectory(benchmark::State& state) {
    const plab::RunLogView view = log_of(state.range(0)).view();
    const plab::RunConfig config;
    for (auto _ : state) benchmark::DoNotOptimize(plab::make_scale_trajectory(view, config, kColumns));
}

void loss_curves(benchmark::State& state) {
    const plab::RunLogView view = log_of(state.range(0)).view();
    for (auto _ : state) benchmark::DoNotOptimize(plab::make_loss_curves(view, true, kColumns));
}

// A whole frame: the snapshot the GUI takes, then both panels.
void redraw(benchmark::State& state) {
    const plab::RunLog& log = log_of(state.range(0));
    const plab::RunConfig config;
    for (auto _ : state) {
        const plab::RunLogView view = log.view();
        benchmark::DoNotOptimize(plab::make_scale_trajectory(view, config, kColumns));
        benchmark::DoNotOptimize(plab::make_loss_curves(view, true, kColumns));
    }
}

// Raw decimation of 100k samples (a series held at full resolution).
void min_max_columns_raw(benchmark::State& state) {
    const auto n = static_cast<std::size_t>(state.range(0));
    std::mt19937 rng(2);
    std::normal_distribution<double> gauss(0.0, 1.0);
    std::vector<double> x(n), lo(n), hi(n);
    for (std::size_t i = 0; i < n; ++i) {
        x[i] = static_cast<double>(i + 1);
        lo[i] = gauss(rng);
        hi[i] = lo[i] + std::abs(gauss(rng));
    }
    for (auto _ : state) {
        benchmark::DoNotOptimize(plab::min_max_columns(x, lo, hi, 0, static_cast<double>(n), kColumns));
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(n));
}

}  // namespace

BENCHMARK(scale_trajectory)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMicrosecond);
BENCHMARK(loss_curves)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMicrosecond);
BENCHMARK(redraw)->Arg(100000)->Arg(1000000)->Unit(benchmark::kMicrosecond);
BENCHMARK(min_max_columns_raw)->Arg(100000)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
