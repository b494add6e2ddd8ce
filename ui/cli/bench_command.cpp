// plab bench: training speed of the default preset and the cost of its
// parts, measured in one run so the ratios hold on a noisy machine.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <iostream>
#include <optional>

#include "engine/common/error.h"
#include "engine/common/number_text.h"
#include "engine/train/preset_io.h"
#include "engine/train/trainer.h"
#include "ui/cli/commands.h"
#include "ui/records/json_line.h"

namespace plab {

namespace {

struct Variant {
    const char* name;
    const char* what;
    Recipe recipe;
    bool twin;
    bool telemetry;
    bool histograms;  // at the preset's hist_every
    bool step_graphs = true;  // steps replayed from a recorded graph (TrainerOptions::step_graphs)
};

// The variants the speed targets compare. The first is the preset
// as shipped (histograms too); the others isolate one cost each.
constexpr Variant kVariants[] = {
    {"default", "preset as shipped: twin, telemetry, histograms", Recipe::amp_fp16, true, true, true},
    {"amp_fp16", "AMP FP16 emulation alone (twin and telemetry off)", Recipe::amp_fp16, false, false, false},
    {"fp32", "plain FP32 (twin and telemetry off)", Recipe::fp32, false, false, false},
    {"amp_fp16_stats", "AMP FP16 with per-step statistics, no histograms (twin off)", Recipe::amp_fp16, false, true,
     false},
    {"amp_fp16_telemetry", "AMP FP16 with statistics and the preset's histograms (twin off)", Recipe::amp_fp16, false,
     true, true},
    {"default_no_telemetry", "preset with its twin, telemetry off", Recipe::amp_fp16, true, false, false},
    {"default_op_by_op", "preset as shipped, every step run op by op (no step graphs)", Recipe::amp_fp16, true, true,
     true, false},
};
constexpr std::size_t kDefault = 0, kAmp = 1, kFp32 = 2, kStats = 3, kTelemetry = 4, kDefaultBare = 5,
                      kDefaultOpByOp = 6;

RunConfig variant_config(const RunConfig& base, const Variant& v, int steps) {
    RunConfig c = base;
    c.steps = steps;
    c.eval_every = steps;  // one evaluation, at the end, for every variant alike
    c.twin = v.twin;
    c.telemetry.enabled = v.telemetry;
    if (!v.histograms) c.telemetry.hist_every = 0;
    if (v.recipe != c.precision.recipe) {
        c.precision.recipe = v.recipe;
        c.scaler.kind = recipe_default_scaler(v.recipe);
    }
    return c;
}

struct Timing {
    std::vector<double> seconds;  // one per round
    std::uint64_t host_waits = 0;  // of the last round
    std::int64_t replayed = 0;     // steps replayed from a graph, of the last round
    std::optional<std::uint64_t> peak_bytes;  // device bytes the run added at its peak (the most of any round)
    double best() const { return *std::min_element(seconds.begin(), seconds.end()); }
};

void time_run(Backend& backend, const RunConfig& config, bool step_graphs, Timing& timing) {
    TrainerOptions options;
    options.step_graphs = step_graphs;
    if (backend.device() == Device::cuda) reset_device_peak();
    Trainer trainer(backend, config, options);
    const std::uint64_t waits = device_host_waits();
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < config.steps; ++i) (void)trainer.step();
    timing.seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    timing.host_waits = device_host_waits() - waits;
    timing.replayed = trainer.step_graph_counts().replayed;
    if (backend.device() != Device::cuda) return;
    if (const auto peak = device_peak_bytes()) timing.peak_bytes = std::max(timing.peak_bytes.value_or(0), *peak);
}

}  // namespace

void run_bench(const BenchOptions& o, std::ostream& out, std::ostream& log) {
    if (o.steps < 10 || o.steps > 1000000)
        throw Error("--steps: " + std::to_string(o.steps) + " is out of range; allowed 10..1000000");
    if (o.rounds < 1 || o.rounds > 100)
        throw Error("--rounds: " + std::to_string(o.rounds) + " is out of range; allowed 1..100");
    const RunConfig base = load_preset(o.preset);
    const std::unique_ptr<Backend> made = make_run_backend(o.backend);
    Backend& backend = *made;
    std::vector<Timing> timings(std::size(kVariants));
    // Rounds interleave the variants, so a burst of load hits all of them;
    // the best round of each is its figure.
    for (int round = 0; round < o.rounds; ++round)
        for (std::size_t v = 0; v < std::size(kVariants); ++v) {
            if (!o.json) log << "round " << round + 1 << "/" << o.rounds << ": " << kVariants[v].name << '\n';
            time_run(backend, variant_config(base, kVariants[v], o.steps), kVariants[v].step_graphs, timings[v]);
        }
    auto rate = [&](std::size_t v) { return o.steps / timings[v].best(); };
    const double amp_vs_fp32 = timings[kAmp].best() / timings[kFp32].best();
    const double stats_overhead = timings[kStats].best() / timings[kAmp].best() - 1.0;
    const double telemetry_overhead = timings[kTelemetry].best() / timings[kAmp].best() - 1.0;
    const double preset_telemetry_overhead = timings[kDefault].best() / timings[kDefaultBare].best() - 1.0;
    // How often a step of the preset waited for the device (evaluations included): 0 on the CPU.
    const double waits_per_step = static_cast<double>(timings[kDefault].host_waits) / o.steps;
    // What replaying recorded steps saves (a GPU: launches; the CPU: nothing to save, a check of its cost).
    const double graph_speedup = timings[kDefaultOpByOp].best() / timings[kDefault].best();
    const double replayed_frac = static_cast<double>(timings[kDefault].replayed) / o.steps;
    if (o.json) {
        std::string line;
        {
            JsonLine j(line);
            j.string("preset", base.name).string("backend", backend.name()).integer("steps", o.steps).integer("rounds", o.rounds);
            j.begin_object("variants");  // what each variant is, in the order measured
            for (const Variant& v : kVariants) j.string(v.name, v.what);
            j.end_object();
            j.begin_object("steps_per_s");
            for (std::size_t v = 0; v < std::size(kVariants); ++v) j.number(kVariants[v].name, rate(v));
            j.end_object();
            j.integer("hist_every", base.telemetry.hist_every);
            j.number("amp_fp16_time_vs_fp32", amp_vs_fp32)
                .number("stats_overhead", stats_overhead)
                .number("telemetry_overhead", telemetry_overhead)
                .number("preset_telemetry_overhead", preset_telemetry_overhead)
                .number("host_waits_per_step", waits_per_step)
                .number("step_graph_speedup", graph_speedup)
                .number("replayed_step_frac", replayed_frac);
            if (timings[kAmp].peak_bytes && timings[kFp32].peak_bytes) {
                j.begin_object("peak_device_mib");
                for (std::size_t v = 0; v < std::size(kVariants); ++v)
                    j.number(kVariants[v].name, static_cast<double>(timings[v].peak_bytes.value_or(0)) / (1 << 20));
                j.end_object();
            }
        }
        out << line;
        return;
    }
    out << "preset " << base.name << " on " << backend.name() << ", " << o.steps << " steps per run, best of "
        << o.rounds << " rounds\n";
    for (std::size_t v = 0; v < std::size(kVariants); ++v)
        out << "  " << significant_text(rate(v), 5) << " steps/s  " << kVariants[v].name << ": " << kVariants[v].what
            << '\n';
    if (timings[kAmp].peak_bytes && timings[kFp32].peak_bytes)
        out << "  device memory at the peak: AMP FP16 " << mib_text(*timings[kAmp].peak_bytes) << " MiB, FP32 "
            << mib_text(*timings[kFp32].peak_bytes) << " MiB\n";
    out << "  AMP FP16 emulation costs " << significant_text(amp_vs_fp32, 3) << "x plain FP32's time\n";
    out << "  per-step statistics add " << significant_text(100.0 * stats_overhead, 3) << "% to an AMP FP16 step\n";
    out << "  statistics and histograms every " << base.telemetry.hist_every << " steps add "
        << significant_text(100.0 * telemetry_overhead, 3) << "%\n";
    out << "  telemetry adds " << significant_text(100.0 * preset_telemetry_overhead, 3)
        << "% to the preset as shipped (twin on)\n";
    out << "  " << significant_text(100.0 * replayed_frac, 3) << "% of the preset's steps replayed a recorded graph, "
        << significant_text(graph_speedup, 3) << "x the speed of running them op by op\n";
    if (backend.device() != Device::cpu)
        out << "  a step of the preset waits for the device " << significant_text(waits_per_step, 3)
            << " times (evaluations included)\n";
}

void add_bench_command(CLI::App& app) {
    auto options = std::make_shared<BenchOptions>();
    CLI::App* cmd = app.add_subcommand("bench", "Measure training speed and the cost of emulation and telemetry");
    cmd->description(
        "Measure training speed on this machine: the preset as shipped (twin, telemetry, histograms),\n"
        "AMP FP16 emulation alone, plain FP32, AMP FP16 with per-step statistics, and AMP FP16 with statistics\n"
        "and the preset's histograms, and the preset with its twin but no telemetry, interleaved over several\n"
        "rounds (best round counts), then the ratios: AMP emulation time over FP32 time, the overhead of\n"
        "statistics alone and with histograms on an AMP step (twin off), and telemetry's overhead on the\n"
        "preset as shipped; the share of the preset's steps that replayed a recorded step graph, and the\n"
        "speed that gives over running every step op by op; on a GPU, how often a step waits for the device.\n"
        "--backend picks where (cpu: the exact emulation; cuda: the GPU, exit 2 without one; auto).\n\n"
        "--compare-recipes instead sets one model under FP32, TF32, AMP-FP16 and AMP-BF16 side by side: the\n"
        "bytes each holds by tensor class (weights, master copies, gradients, activations, optimizer state)\n"
        "at native widths, and on a GPU the step time and test accuracy after --steps steps (default 20),\n"
        "next to the seeds' claim (2-3x faster, about half the memory). Without --preset the model is the\n"
        "seeds' 2-4096x4-3 MLP with batch 8192.\n\n"
        "--long-run instead trains the preset once for --steps steps (default 1000000) and sets the mean step\n"
        "time of the first tenth beside the last tenth's: flat, unless something grows with the run. On the\n"
        "CPU, --subnormals picks how the optimizer meets FP32 subnormals (a stalled unit's moments decay into\n"
        "them and stay): hardware (plain float), exact-lanes (those elements in software, same bits) or auto\n"
        "(times this core's subnormal path once and picks).\n\n"
        "Examples:\n  plab bench\n  plab bench --json --steps 2000 --rounds 5\n  plab bench --backend cuda --json\n"
        "  plab bench --compare-recipes\n  plab bench --compare-recipes --backend cuda --json\n"
        "  plab bench --long-run --steps 200000 --subnormals hardware");
    CLI::Option* preset = cmd->add_option("--preset", options->preset, "Preset to measure")->default_val("spirals-amp-fp16");
    CLI::Option* steps = cmd->add_option("--steps", options->steps, "Steps per measured run")->default_val(1000);
    cmd->add_option("--rounds", options->rounds, "Interleaved rounds; the best counts")->default_val(3);
    cmd->add_flag("--json", options->json, "One JSON object instead of text");
    CLI::Option* backend =
        cmd->add_option("--backend", options->backend, "Where to train: cpu|cuda|auto (--compare-recipes: auto)")
            ->default_val("cpu");
    cmd->add_flag("--compare-recipes", options->compare_recipes,
                  "FP32, TF32, AMP-FP16, AMP-BF16 of one model side by side: memory by tensor class, and on a GPU speed");
    cmd->add_flag("--long-run", options->long_run,
                  "One long run: mean step time of its first and last tenth side by side");
    CLI::Option* subnormals = cmd->add_option("--subnormals", options->subnormals,
                                              "With --long-run on the CPU: auto|hardware|exact-lanes")
                                  ->default_val("auto");
    cmd->callback([options, preset, steps, backend, subnormals] {
        if (options->compare_recipes && options->long_run)
            throw Error("--long-run and --compare-recipes are two different benchmarks; give one");
        if (subnormals->count() != 0 && !options->long_run)
            throw Error("--subnormals applies to --long-run only");
        if (options->long_run) {
            BenchOptions o = *options;
            if (steps->count() == 0) o.steps = 1000000;
            return run_long_run_bench(o, std::cout, std::cerr);
        }
        if (!options->compare_recipes) return run_bench(*options, std::cout, std::cerr);
        BenchOptions o = *options;
        if (preset->count() == 0) o.preset.clear();  // the seeds' wide MLP
        if (steps->count() == 0) o.steps = 20;
        if (backend->count() == 0) o.backend = "auto";  // times wherever there is a GPU
        run_recipe_comparison(o, std::cout, std::cerr);
    });
}

}  // namespace plab
