// Reading a run record back: the careful way (nlohmann-json, every line)
// against the fast way (simdjson for step and hist lines, fast_lines.h), as
// `plab summary` reads (no layers) and as the workbenches open a record
// (the newest 1024 steps' layers and histograms, on a second pass). Bytes a
// second of a record of scaler-sawtooth; a record's speed depends on its
// bytes, not on how many layers fill them.
//   build/dev/bench/record_read_bench [--benchmark_min_time=0.5]
#include <benchmark/benchmark.h>

#include <sstream>
#include <string>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/train/preset_io.h"
#include "engine/train/trainer.h"
#include "ui/records/run_reader.h"
#include "ui/records/run_writer.h"

namespace {

constexpr int kSteps = 1500;

const std::string& record_text() {
    static const std::string text = [] {
        plab::RunConfig config = plab::load_preset("scaler-sawtooth");
        config.steps = kSteps;
        plab::CpuBackend backend;
        plab::Trainer trainer(backend, config);
        std::ostringstream out;
        auto writer = plab::make_run_writer(plab::RecordFormat::jsonl, out);
        writer->header(plab::make_run_header(trainer, backend));
        for (int i = 0; i < kSteps; ++i) {
            const plab::StepRecord r = trainer.step();
            writer->step(r);
            plab::write_step_extras(*writer, r);
        }
        writer->flush();
        return out.str();
    }();
    return text;
}

void read(benchmark::State& state, bool careful, bool open) {
    const std::string& text = record_text();
    plab::RunReadOptions options;
    options.careful_only = careful;
    options.layers = open;
    options.layer_histograms = open;
    options.layers_kept = 1024;
    for (auto _ : state) {
        std::istringstream in(text);
        benchmark::DoNotOptimize(plab::read_run(in, "bench.jsonl", options));
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * text.size()));
}

void summary_careful(benchmark::State& s) { read(s, true, false); }
void summary_fast(benchmark::State& s) { read(s, false, false); }
void open_careful(benchmark::State& s) { read(s, true, true); }
void open_fast(benchmark::State& s) { read(s, false, true); }

BENCHMARK(summary_careful)->Unit(benchmark::kMillisecond);
BENCHMARK(summary_fast)->Unit(benchmark::kMillisecond);
BENCHMARK(open_careful)->Unit(benchmark::kMillisecond);
BENCHMARK(open_fast)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
