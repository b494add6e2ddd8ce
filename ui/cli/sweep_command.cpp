// plab sweep: a grid of preset settings, every cell trained once per seed on
// all cores (or on many CUDA streams at once), summed up per cell
// (engine/sweep does the work; this file reads the options and prints).
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <iostream>
#include <memory>

#include "engine/backend/backend_choice.h"
#include "engine/common/error.h"
#include "engine/common/number_text.h"
#include "engine/sweep/cell_summary.h"
#include "engine/sweep/sweep_runner.h"
#include "engine/train/preset_io.h"
#include "ui/cli/backend_option.h"
#include "ui/cli/commands.h"
#include "ui/cli/integer_option.h"
#include "ui/cli/interrupt.h"
#include "ui/cli/progress_bar.h"
#include "ui/cli/sweep_output.h"
#include "ui/records/output_file.h"
#include "ui/records/record_files.h"
#include "ui/records/run_writer.h"

namespace plab {

namespace {

// Numbers as typed, parsed here so a bad one gets plab's message shape.
struct RawSweepOptions {
    std::optional<std::string> steps, threads;
};

void parse_raw_sweep_options(const RawSweepOptions& raw, SweepOptions& o) {
    if (raw.steps) o.steps = parse_integer_option<int>("--steps", *raw.steps, 1, 10000000, "1..10000000");
    if (raw.threads) o.threads = parse_integer_option<std::size_t>("--threads", *raw.threads, 1, 1024, "1..1024");
}

const char* sweep_help_text() {
    return "Train a grid of preset settings and compare the cells side by side.\n"
           "Each --grid names a preset field (any field plab run --set takes) and its values; the cells are every\n"
           "combination, and --seeds trains each cell once per seed. Runs train at once, one per core, on the\n"
           "CPU's exact emulation; a run's records are those plab run writes for the same --set, --steps and --seed.\n"
           "--backend cuda trains on the GPU instead (as plab run --backend cuda): one run per CUDA stream, several\n"
           "streams at once on the one device (by default one per core, 4 at least; --threads sets it), each run\n"
           "the numbers plab run --backend cuda gives it alone. That is concurrent runs, not one batched kernel.\n"
           "The default is cpu, as for plab run: the exact emulation gives the same sweep on every machine.\n"
           "Per cell, over its seeds (mean, and [min..max] with more than one seed): skipped steps, steps at the\n"
           "scaler's floor and ceiling, the share of weight-gradient values held as zero (flushed ones among\n"
           "them), the share of the FP32 twin's gradients (times the scale) the gradient format flushes (what was\n"
           "truly lost), the final training loss, test accuracy and its gap to the FP32 twin, and the first step\n"
           "whose update grew the scale.\n\n"
           "Examples:\n"
           "  plab sweep --grid scaler.init_scale=2^8,2^12,2^16,2^20,2^24 --grid scaler.growth_interval=50,200,1000,2000\n"
           "  plab sweep --grid scaler.init_scale=2^8,2^16,2^24 --seeds 1-5 --steps 500 --json\n"
           "  plab sweep --preset scaler-sawtooth --grid optimizer.lr=0.001,0.003 --grid precision.recipe=amp-fp16,amp-bf16\n"
           "  plab sweep --grid scaler.growth_interval=100,1000 --records runs/   each run's records, as plab run writes\n"
           "  plab sweep --grid scaler.init_scale=2^8,2^16,2^24 --backend cuda    on the GPU, exit 2 without one\n"
           "Values may be written 2^K. A grid of more than 400 runs needs --yes.\n"
           "Exit codes: 0 done; 2 bad input, found before anything trains (the message names the axis or option and\n"
           "the allowed values; --backend cuda without a device says so); 4 --records could not be written;\n"
           "130/143 stopped by SIGINT/SIGTERM (no summary; records of finished runs kept).";
}

// One run's record file under --records: written as plab run --out writes
// it, and renamed into place only when the run is complete.
class RunRecordFile {
public:
    RunRecordFile(const std::string& path, const Trainer& trainer, const Backend& backend)
        : file_(path, true, "--records"), writer_(make_run_writer(RecordFormat::jsonl, file_.stream(), file_.index())) {
        writer_->header(make_run_header(trainer, backend));
    }
    void step(const StepRecord& r) {
        writer_->step(r);
        write_step_extras(*writer_, r);
        if (!file_.stream()) throw WriteError("--records: writing '" + file_.target() + "' failed" + write_failure_reason());
    }
    void finish() {
        writer_->flush();
        file_.commit();
    }

private:
    RecordFiles file_;
    std::unique_ptr<RunWriter> writer_;
};

// Each run's file lives from its first to its last step; a run's calls come
// from one thread, so the slots need no lock.
SweepObserver record_files(const SweepPlan& plan, const std::string& dir,
                           std::vector<std::unique_ptr<RunRecordFile>>& files) {
    files.resize(plan.runs.size());
    return {
        .started = [&plan, dir, &files](std::size_t run, const Trainer& trainer, const Backend& backend) {
            const std::string path = (std::filesystem::path(dir) / (sweep_run_name(plan, run) + ".jsonl")).string();
            files[run] = std::make_unique<RunRecordFile>(path, trainer, backend);
        },
        .step = [&files](std::size_t run, const StepRecord& r) { files[run]->step(r); },
        .finished = [&files](std::size_t run, const RunMeasures&) {
            files[run]->finish();
            files[run].reset();
        },
    };
}

void prepare_records_dir(const std::string& dir) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir))
        throw Error("--records: '" + dir + "' is not a folder plab can write to" + (ec ? ": " + ec.message() : ""));
}

SweepPlan make_plan(const SweepOptions& o) {
    std::vector<SweepAxis> axes;
    for (const std::string& grid : o.grids) axes.push_back(parse_sweep_axis(grid));
    PresetEdits edits{o.settings, o.steps, std::nullopt, std::nullopt};
    const std::vector<std::uint64_t> seeds = o.seeds ? parse_seed_list(*o.seeds) : std::vector<std::uint64_t>{};
    SweepPlan plan = plan_sweep(load_preset(o.preset), edits, axes, seeds);
    if (plan.runs.size() > kSweepRunsWithoutYes && !o.yes)
        throw Error("plab sweep: the grid is " + grid_size_text(plan) + "; more than " +
                    std::to_string(kSweepRunsWithoutYes) + " runs needs --yes (or fewer values or seeds)");
    return plan;
}

std::string headline(const SweepPlan& plan, std::size_t threads, Device device, double seconds) {
    const double runs = static_cast<double>(plan.runs.size());
    return "plab sweep: " + grid_size_text(plan) + " of " + plan.runs.front().config.name + ", " +
           std::to_string(plan.runs.front().config.steps) + " steps each, on " + std::to_string(threads) +
           (device == Device::cuda ? " threads (one CUDA stream each)" : " threads") + ": " +
           significant_text(seconds, 3) + " s (" + significant_text(runs / seconds, 3) + " runs/s)\n";
}

}  // namespace

int run_sweep_command(const SweepOptions& o, std::ostream& out, std::ostream& log, bool progress) {
    const Device device = backend_device(o.backend);  // plab run's check and message, before anything is made
    const SweepPlan plan = make_plan(o);
    if (!o.records.empty()) prepare_records_dir(o.records);
    std::vector<std::unique_ptr<RunRecordFile>> files;
    SweepRunOptions run_options;
    run_options.threads = o.threads;
    run_options.backend = o.backend;
    if (!o.records.empty()) run_options.observer = record_files(plan, o.records, files);
    ProgressBar bar(log, static_cast<std::int64_t>(plan.runs.size()) * plan.runs.front().config.steps, progress);
    run_options.progress = [&](std::int64_t steps, std::size_t runs) {
        bar.update(steps, std::to_string(runs) + "/" + std::to_string(plan.runs.size()) + " runs");
    };
    const InterruptGuard interrupts;
    run_options.stop = [] { return InterruptGuard::requested() != 0; };
    const auto start = std::chrono::steady_clock::now();
    const std::optional<std::vector<RunMeasures>> measures = run_sweep(plan, run_options);
    bar.finish();
    if (!measures) {
        const int signal = InterruptGuard::requested();
        log << "plab: stopped by " << signal_name(signal) << "; no summary (only whole sweeps are summed up)\n";
        return 128 + signal;
    }
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    out << (o.json ? sweep_json(plan, *measures) : sweep_table(plan, *measures));
    if (!o.quiet) log << headline(plan, sweep_threads(plan.runs.size(), o.threads, device), device, seconds);
    return 0;
}

void add_sweep_command(CLI::App& app) {
    auto options = std::make_shared<SweepOptions>();
    auto raw = std::make_shared<RawSweepOptions>();
    CLI::App* cmd = app.add_subcommand("sweep", "Train a grid of preset settings on all cores and compare the cells");
    cmd->description(sweep_help_text());
    cmd->add_option("--preset", options->preset, "Preset name (see 'plab presets') or a .json file")
        ->default_val("spirals-amp-fp16");
    cmd->add_option("--grid", options->grids,
                    "An axis: FIELD=V1,V2,... over any preset field plab run --set takes (repeatable; the cells are "
                    "every combination)")
        ->type_name("FIELD=VALUES");
    cmd->add_option("--seeds", options->seeds, "Train each cell once per seed: a range or a list, e.g. 1-5 or 1,3,7")
        ->type_name("SEEDS");
    cmd->add_option("--steps", raw->steps, "Optimizer steps of every run (overrides the preset's), 1..10000000");
    cmd->add_option("--set", options->settings, "Change one preset field in every run: KEY.PATH=VALUE (repeatable)");
    cmd->add_flag("--json", options->json, "One JSON object instead of the table");
    cmd->add_option("--records", options->records,
                    "Also write each run's records (plab run's JSON Lines) into folder DIR, one file per cell and seed")
        ->type_name("DIR");
    add_backend_option(*cmd, options->backend);
    cmd->add_option("--threads", raw->threads,
                    "Runs trained at once (default: one per core; on cuda, one CUDA stream each and 4 at least)");
    cmd->add_flag("--yes", options->yes,
                  "Train a grid of more than " + std::to_string(kSweepRunsWithoutYes) + " runs");
    cmd->add_flag("--quiet", options->quiet, "No timing line on standard error");
    cmd->callback([options, raw] {
        parse_raw_sweep_options(*raw, *options);
        const int code = run_sweep_command(*options, std::cout, std::cerr, isatty(STDERR_FILENO) != 0);
        if (code != 0) throw CommandExit(code);
    });
}

}  // namespace plab
