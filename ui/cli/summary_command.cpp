// plab summary FILE: what `plab run` prints after training, for a record
// read back: the lab's own (plab run --out, the workbench's File > Export
// run) or a PyTorch run that plab_probe recorded.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>

#include "engine/common/error.h"
#include "ui/cli/commands.h"
#include "ui/cli/progress_bar.h"
#include "ui/cli/run_summary.h"
#include "ui/records/run_reader.h"

namespace plab {

namespace {

std::string first_non_finite(const RecordedNan& n) {
    std::string s = "  first non-finite value: step " + std::to_string(n.step) + ", " + n.phase + ", " + n.layer;
    if (!n.op.empty()) s += " (" + n.op + ")";
    if (!n.tensor.empty()) s += " " + n.tensor;
    s += ": " + std::to_string(n.nans) + " NaN, " + std::to_string(n.infs) + " Inf";
    if (!n.format.empty()) s += " in " + n.format;
    return s + "\n";
}

}  // namespace

std::string summarise_record(const std::string& path, std::ostream& log, bool progress) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    // A bar for the records that take a while to read (about 50 MB a second).
    ProgressBar bar(log, ec ? 0 : static_cast<std::int64_t>(size), progress && !ec && size > (64u << 20));
    RunReadOptions options;
    options.layers = false;  // the summary reads the step fields only
    options.progress = [&](std::uint64_t bytes) {
        bar.update(static_cast<std::int64_t>(bytes), std::to_string(bytes >> 20) + " MiB");
    };
    const RecordedRun run = read_run_file(path, options);
    bar.finish();
    for (const std::string& w : run.warnings) log << "plab: " << w << '\n';
    if (run.steps.empty()) throw Error(path + ": a run record without steps (the run stopped before its first)");
    SummaryTotals totals;
    for (const StepRecord& r : run.steps) totals.add(r);
    std::string headline = std::to_string(run.steps.size()) + " steps on " + run.backend;
    if (!run.source.empty()) headline += ", recorded by " + run.source;
    return run_summary(run.name.empty() ? "run" : run.name, run.twin, totals, headline,
                       path + " (" + std::to_string(run.histogram_lines) + " histogram lines)",
                       run.nans.empty() ? "" : first_non_finite(run.nans.front()));
}

void add_summary_command(CLI::App& app) {
    auto path = std::make_shared<std::string>();
    CLI::App* cmd = app.add_subcommand("summary", "Summarise a run record, the lab's own or a PyTorch run's");
    cmd->description(
        "Summarise a run record, the lab's own or a PyTorch run's.\n"
        "Reads a JSON Lines record (plab run --out, the workbench's File > Export run, or a PyTorch run that\n"
        "plab_probe recorded: docs/probe.md) and prints what plab run prints after training: the final loss,\n"
        "the test accuracy, the loss scale with its overflows, skipped steps, backoffs and growths, and the\n"
        "first non-finite value when the record names one.\n"
        "\n"
        "Examples:\n"
        "  plab run --steps 500 --out run.jsonl && plab summary run.jsonl\n"
        "  plab summary my_model.rank0.jsonl       a record plab_probe wrote\n"
        "A record cut off mid-line (a killed run) is read up to that line, with a warning.\n"
        "Exit codes: 0 done; 2 the file cannot be read or is not a run record (the message names the line\n"
        "and the field).");
    cmd->add_option("FILE", *path, "The run record (JSON Lines)")->required();
    cmd->callback([path] { std::cout << summarise_record(*path, std::cerr, isatty(STDERR_FILENO) != 0); });
}

}  // namespace plab
