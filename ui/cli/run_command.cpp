// plab run: train a preset headless and write its records.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>

#include "engine/amp/scaler_fields.h"
#include "engine/backend/cpu/cpu_backend.h"
#include "engine/common/error.h"
#include "engine/common/number_text.h"
#include "engine/train/preset_io.h"
#include "engine/train/trainer.h"
#include "ui/cli/backend_option.h"
#include "ui/cli/commands.h"
#include "ui/cli/integer_option.h"
#include "ui/cli/interrupt.h"
#include "ui/records/init_export.h"
#include "ui/records/output_file.h"
#include "ui/records/record_files.h"
#include "ui/cli/progress_bar.h"
#include "ui/cli/run_summary.h"
#include "ui/records/run_writer.h"

namespace plab {

namespace {

// The preset with the command line's changes, in the order a user reads
// them: the file, then each --set, then the dedicated flags.
RunConfig resolve_config(const RunOptions& o) {
    PresetEdits edits{o.settings, std::nullopt, o.seed, o.hist_every};
    if (o.steps) edits.steps = static_cast<int>(*o.steps);
    RunConfig config = edited_config(load_preset(o.preset), edits);
    require_read_scaler_settings("--set", o.settings, {config.scaler.kind});
    return config;
}

void check_options(const RunOptions& o) {
    check_backend_choice(o.backend);
    // --steps and --hist-every were range-checked as they were parsed.
    if (o.format == RecordFormat::csv && o.hist_every.value_or(0) > 0)
        throw Error("--hist-every: histograms are written to JSON Lines only; use --format jsonl");
    if (o.continue_on_nan && !o.trace_nan)
        throw Error("--continue-on-nan: only with --trace-nan (it says whether to train on past the first NaN/Inf "
                    "that --trace-nan reports)");
}

// The numeric and named options as typed: parsed here so that every bad
// value gets the project's message shape (field, value, allowed values).
struct RawRunOptions {
    std::optional<std::string> steps, seed, hist_every;
    std::string format = "jsonl";
};

void parse_raw_options(const RawRunOptions& raw, RunOptions& o) {
    if (raw.steps) o.steps = parse_integer_option<long long>("--steps", *raw.steps, 1, 10000000, "1..10000000");
    if (raw.hist_every)
        o.hist_every = parse_integer_option<int>("--hist-every", *raw.hist_every, 0, 10000000,
                                                 "0..10000000 (0 = no histograms)");
    if (raw.seed)
        o.seed = parse_integer_option<std::uint64_t>("--seed", *raw.seed, 0, UINT64_MAX,
                                                     "0..18446744073709551615");
    if (raw.format == "jsonl")
        o.format = RecordFormat::jsonl;
    else if (raw.format == "csv")
        o.format = RecordFormat::csv;
    else
        throw Error("--format: '" + raw.format + "' is not a record format; allowed: jsonl|csv");
}

std::string timed_headline(std::int64_t steps, double seconds, const std::string& backend_name) {
    const double rate = seconds > 0 ? static_cast<double>(steps) / seconds : 0;
    return std::to_string(steps) + " steps in " + significant_text(seconds, 3) + " s (" +
           std::to_string(static_cast<long>(rate)) + " steps/s) on " + backend_name;
}

// What a failed write of the records says: where, when, why, and what is
// left (an --out file is replaced only by a complete run).
std::string records_failure(const RunOptions& o, const std::string& when) {
    const std::string to = o.out.empty() ? "standard output" : "'" + o.out + "'";
    return "writing the records to " + to + " failed " + when + write_failure_reason() + "; the run stopped" +
           (o.out.empty() ? "" : " and " + to + " is unchanged");
}

std::string progress_detail(const StepRecord& r) {
    return "loss " + significant_text(r.loss, 4) + "  scale " + power_of_two_text(r.scale_after);
}

}  // namespace

int run_training(const RunOptions& o, const RunConfig& config, std::ostream& records, std::ostream& log,
                 bool progress, const std::function<void()>& finish_records, std::ostream* index) {
    if (o.dump_preset) {
        records << run_config_to_json(config, true) << '\n';
        return 0;
    }
    const std::unique_ptr<Backend> backend = make_run_backend(o.backend);
    Trainer trainer(*backend, config, {.trace_nan = o.trace_nan});
    if (!o.export_init.empty()) export_initial_state(trainer, *backend, config, o.export_init);
    const auto writer = make_run_writer(o.format, records, index);
    writer->header(make_run_header(trainer, *backend));
    ProgressBar bar(log, config.steps, progress);
    SummaryTotals totals;
    const auto start = std::chrono::steady_clock::now();
    bool nan_reported = false;
    const InterruptGuard interrupts;
    // Every way out first makes sure the records reached their destination,
    // so no message says where they are before a full disk is found.
    const auto close_records = [&](int steps_done) {
        errno = 0;
        writer->flush();
        records.flush();
        if (!records)
            throw WriteError(records_failure(o, "after step " + std::to_string(steps_done)));
        if (finish_records) finish_records();
    };
    for (int i = 0; i < config.steps; ++i) {
        if (const int signal = InterruptGuard::requested()) {
            // Stopped between steps: every record written so far is whole.
            bar.finish();
            close_records(i);
            const std::string where = o.out.empty() ? std::string("standard output has") : "'" + o.out + "' holds";
            log << "plab: stopped by " << signal_name(signal) << " after step " << i << " of " << config.steps << "; "
                << where << " the records of steps 1-" << i << " (a partial run)\n";
            return 128 + signal;
        }
        const auto before = std::chrono::steady_clock::now();
        StepRecord r = trainer.step();
        std::optional<double> micros;
        if (o.timing)
            micros = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - before).count();
        errno = 0;  // so a failed write below says its own reason
        writer->step(r, micros);
        write_step_extras(*writer, r);
        if (!records)
            throw WriteError(records_failure(o, "at step " + std::to_string(r.step)));
        totals.add(r);
        bar.update(r.step, progress_detail(r));
        if (!nan_reported && trainer.nan_report()) {
            nan_reported = true;
            writer->nan(*trainer.nan_report());
            bar.finish();
            log << "plab: " << trainer.nan_report()->diagnosis << '\n';
            if (!o.continue_on_nan) {
                close_records(r.step);
                log << "plab: stopped at the first non-finite value (--continue-on-nan goes on)\n";
                return 3;
            }
        }
    }
    bar.finish();
    close_records(config.steps);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    if (!o.quiet)
        log << run_summary(config.name, config.twin, totals, timed_headline(totals.last.step, seconds, backend->name()),
                           o.out.empty() ? "standard output" : o.out);
    return nan_reported ? 3 : 0;  // --continue-on-nan trained on, but a NaN/Inf was found
}

void add_run_command(CLI::App& app) {
    auto options = std::make_shared<RunOptions>();
    auto raw = std::make_shared<RawRunOptions>();
    CLI::App* cmd = app.add_subcommand("run", "Train a preset headless and write its per-step records");
    cmd->description(
        "Train a preset headless and write its per-step records.\n"
        "The mixed-precision model and its exact FP32 twin train in lock-step, by default on the CPU's exact\n"
        "emulation (--backend cuda: on the GPU; on the lab's small models its weights are the CPU's bit for\n"
        "bit, while sums that are only reported, the loss and the statistics, may differ in the last bits);\n"
        "every step writes one record (loss, loss scale, overflow/skip events, per-layer telemetry).\n"
        "Records are JSON Lines (documented in docs/telemetry.md) or CSV.\n\n"
        "Examples:\n"
        "  plab run                                         the default preset, records to standard output\n"
        "  plab run --preset scaler-sawtooth --out saw.jsonl\n"
        "  plab run --set scaler.init_scale=1024 --set optimizer.lr=0.005 --steps 500 --format csv --out run.csv\n"
        "  plab run --preset spirals-amp-fp16 --dump-preset  the fully resolved preset, nothing run\n"
        "  plab run --trace-nan --set scaler.kind=none --set precision.recipe=fp16-pure\n"
        "  plab run --backend auto --steps 500               on the GPU when there is one, else the CPU\n"
        "--out FILE must be a regular file or not exist yet (a symlink is followed); it is checked before\n"
        "training and replaced whole when the run ends, never left half written.\n"
        "Exit codes: 0 done; 2 bad input (the message names the field); 3 --trace-nan found a NaN/Inf (with\n"
        "--continue-on-nan too, after the last step);\n"
        "4 the records could not be written (a full disk); 130/143 stopped by SIGINT/SIGTERM (Ctrl-C) between\n"
        "two steps, the records so far kept whole (a second Ctrl-C ends it at once).");
    cmd->add_option("--preset", options->preset, "Preset name (see 'plab presets') or a .json file")
        ->default_val("spirals-amp-fp16");
    cmd->add_option("--steps", raw->steps, "Optimizer steps (overrides the preset's 'steps'), 1..10000000");
    cmd->add_option("--set", options->settings,
                    "Change one preset field: KEY.PATH=VALUE, e.g. scaler.growth_interval=100 (repeatable)");
    add_backend_option(*cmd, options->backend);
    cmd->add_option("--seed", raw->seed, "Seed for data, init and batch order (overrides the preset's), 0..2^64-1");
    CLI::Option* out = cmd->add_option(
        "--out", options->out,
        "Write records to FILE instead of standard output (a regular file: replaced whole when the run ends)");
    cmd->add_option("--format", raw->format, "Record format: jsonl or csv")->default_val("jsonl");
    cmd->add_option("--hist-every", raw->hist_every,
                    "Write log2 gradient/activation histograms every K steps (JSON Lines; 0 = never)");
    cmd->add_flag("--trace-nan", options->trace_nan,
                  "Check every op's output; report the first NaN/Inf (step, phase, layer, op) and stop (exit 3)");
    cmd->add_flag("--continue-on-nan", options->continue_on_nan,
                  "With --trace-nan: report, then keep training to the last step (still exit 3)");
    cmd->add_flag("--dump-preset", options->dump_preset, "Print the fully resolved preset as JSON and exit");
    cmd->add_flag("--timing", options->timing, "Add each step's wall time (time_us) to its record");
    cmd->add_option("--export-init", options->export_init,
                    "Also write the run's starting point into folder DIR as NumPy files: each layer's initial "
                    "weight and bias, the training set and every batch's rows (plain MLPs; docs/telemetry.md)")
        ->type_name("DIR");
    cmd->add_flag("--quiet", options->quiet, "No summary on standard error");
    cmd->callback([options, raw, out] {
        parse_raw_options(*raw, *options);
        check_options(*options);
        // Everything that can be wrong with the input is found before --out is
        // touched, and records go to FILE.part until the run ends: a bad
        // command or a failed run never truncates a previous run's file.
        const RunConfig config = resolve_config(*options);
        const bool tty = isatty(STDERR_FILENO) != 0;
        int code = 0;
        if (out->count() == 0 || options->dump_preset) {
            code = run_training(*options, config, std::cout, std::cerr, tty && !options->dump_preset);
        } else {
            // Checked before training: exit 2 for a path it cannot take.
            RecordFiles file(options->out, options->format == RecordFormat::jsonl);
            code = run_training(*options, config, file.stream(), std::cerr, tty, [&file] { file.commit(); },
                                file.index());
        }
        if (code != 0) throw CommandExit(code);
    });
}

}  // namespace plab
