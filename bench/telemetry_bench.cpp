// The telemetry of one training step of the default preset, part by part,
// beside the step itself (twin and telemetry off) as the anchor: what
// `plab bench` reports as one overhead figure, broken down.
//   build/dev/bench/telemetry_bench --benchmark_min_time=0.2
// Compare times within one run: stats / step is the per-step overhead;
// histograms are paid once every hist_every steps.
#include <benchmark/benchmark.h>

#include <memory>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/train/preset_io.h"
#include "engine/train/telemetry.h"
#include "engine/train/trainer.h"

namespace {

// A trainer 200 steps into the default preset, so that gradients and
// activations have the spread of a real run; twin off, and telemetry as asked.
struct Warm {
    plab::CpuBackend backend;
    std::unique_ptr<plab::Trainer> trainer;
    float scale = 1;
    explicit Warm(bool telemetry = false, int hist_every = 0) {
        plab::RunConfig c = plab::load_preset("spirals-amp-fp16");
        c.twin = false;
        c.telemetry.enabled = telemetry;
        c.telemetry.hist_every = hist_every;
        c.steps = 10000000;
        c.eval_every = c.steps;  // evaluation would overwrite the activations
        trainer = std::make_unique<plab::Trainer>(backend, c);
        for (int i = 0; i < 200; ++i) (void)trainer->step();
        scale = trainer->scaler().scale();
    }
};

Warm& warm() {
    static Warm w;
    return w;
}

// Whole steps: without telemetry (the anchor), with per-step statistics, and
// with statistics and histograms on every step; what each adds over the
// anchor includes the record's assembly, which the parts below leave out.
void run_steps(benchmark::State& state, Warm& w) {
    for (auto _ : state) benchmark::DoNotOptimize(w.trainer->step());
}
void step_anchor(benchmark::State& state) { run_steps(state, warm()); }
void step_stats(benchmark::State& state) {
    static Warm w(true, 0);
    run_steps(state, w);
}
void step_stats_histograms(benchmark::State& state) {
    static Warm w(true, 1);
    run_steps(state, w);
}

void pass_stats(benchmark::State& state) {
    Warm& w = warm();
    std::vector<plab::LayerRecord> layers;
    for (auto _ : state) {
        plab::queue_pass_stats(w.backend, w.trainer->model(), w.scale, layers);
        w.backend.wait_for_queued();
        benchmark::DoNotOptimize(layers.data());
    }
}

void weight_stats(benchmark::State& state) {
    Warm& w = warm();
    std::vector<plab::LayerRecord> layers;
    for (auto _ : state) {
        plab::queue_weight_stats(w.backend, w.trainer->model(), layers);
        w.backend.wait_for_queued();
        benchmark::DoNotOptimize(layers.data());
    }
}

void histograms(benchmark::State& state) {
    Warm& w = warm();
    std::vector<plab::LayerHistograms> hist;
    for (auto _ : state) {
        plab::queue_histograms(w.backend, w.trainer->model(), w.scale, hist);
        w.backend.wait_for_queued();
        benchmark::DoNotOptimize(hist.data());
    }
}

}  // namespace

BENCHMARK(step_anchor);
BENCHMARK(step_stats);
BENCHMARK(step_stats_histograms);
BENCHMARK(pass_stats);
BENCHMARK(weight_stats);
BENCHMARK(histograms);
BENCHMARK_MAIN();
