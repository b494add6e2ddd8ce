// plab scenario: run a teaching scenario headless and print its verdicts.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <algorithm>
#include <iostream>
#include <memory>

#include "engine/common/error.h"
#include "engine/scenario/scenario.h"
#include "engine/train/preset_io.h"
#include "ui/cli/commands.h"
#include "ui/cli/progress_line.h"

namespace plab {

namespace {

std::string scenario_names() {
    std::string names;
    for (const ScenarioEntry& e : scenario_checks()) names += (names.empty() ? "" : ", ") + std::string(e.preset);
    return names;
}

const ScenarioEntry& find_or_reject(const std::string& name) {
    if (name.empty()) throw Error("scenario: a NAME is needed; scenarios: " + scenario_names() + " (plab scenario --list)");
    const ScenarioEntry* entry = find_scenario_check(name);
    if (entry == nullptr)
        throw Error("unknown scenario \"" + name + "\"; scenarios: " + scenario_names() + " (plab scenario --list)");
    return *entry;
}

void write_list(std::ostream& out) {
    std::size_t width = 4;
    for (const ScenarioEntry& e : scenario_checks()) width = std::max(width, e.preset.size());
    out << "NAME" << std::string(width - 4 + 2, ' ') << "WHAT IT SHOWS\n";
    for (const ScenarioEntry& e : scenario_checks()) {
        std::string description;
        try {
            description = load_preset(e.preset).description;
        } catch (const Error& error) {
            description = std::string("(preset does not load) ") + error.what();
        }
        out << e.preset << std::string(width - e.preset.size() + 2, ' ') << description << '\n';
    }
    out << "\nplab scenario NAME runs one and prints its verdicts; plab presets --show NAME prints its preset.\n";
}

}  // namespace

int run_scenario(const ScenarioOptions& o, std::ostream& out, std::ostream& log, bool progress) {
    if (o.list) {
        write_list(out);
        return 0;
    }
    const ScenarioEntry& entry = find_or_reject(o.name);
    const RunConfig config = load_preset(entry.preset);
    // Found before the guide is printed: a missing device is the one line of output.
    const std::unique_ptr<Backend> made = make_run_backend(o.backend);
    out << config.name << ": " << config.description << "\n\n";
    if (!config.guide.empty()) out << config.guide << "\n\n";
    out << std::flush;
    ProgressLine line(log, progress);
    const ScenarioReport report =
        entry.check(*made, [&line](double fraction, const std::string& what) { line.update(fraction, what); });
    line.clear();
    for (const std::string& row : report.table) out << row << '\n';
    std::size_t held = 0;
    for (const Verdict& v : report.verdicts) {
        out << (v.holds ? "\u2713 " : "\u2717 ") << v.text << '\n';
        held += v.holds;
    }
    out << '\n'
        << report.name << ": " << (report.holds() ? "the scenario holds" : "the scenario does NOT hold") << " ("
        << held << " of " << report.verdicts.size() << " checks, on " << made->name() << ")\n";
    return report.holds() ? 0 : 1;
}

void add_scenario_command(CLI::App& app) {
    auto options = std::make_shared<ScenarioOptions>();
    CLI::App* cmd = app.add_subcommand("scenario", "Run a teaching scenario headless and print its verdicts");
    cmd->description(
        "Run a teaching scenario headless and print its verdicts.\n"
        "A scenario is a preset with a guided text (what to look at, what to try, what happens) and a\n"
        "check: it trains the preset and its variants and judges the runs' own records, one line per\n"
        "measured effect (\u2713 holds, \u2717 does not). --backend picks where they train (cpu: the exact\n"
        "emulation, the default; cuda: the GPU, exit 2 without one; auto).\n\n"
        "Examples:\n"
        "  plab scenario --list                       the scenarios and what each shows\n"
        "  plab scenario underflow-no-scaling         the guide, then the verdicts\n"
        "  plab scenario fp8-delayed-scaling --backend cuda   the same check on the GPU\n"
        "  plab presets --show underflow-no-scaling   its preset, to copy and change\n"
        "  plab run --preset underflow-no-scaling --set scaler.kind=dynamic   train it yourself\n"
        "Exit codes: 0 every verdict holds; 1 one does not; 2 bad input (e.g. an unknown scenario).");
    cmd->add_option("name", options->name, "The scenario (a preset name; see --list)");
    cmd->add_flag("--list", options->list, "List the scenarios");
    cmd->add_option("--backend", options->backend, "Where to train: cpu|cuda|auto")->default_val("cpu");
    cmd->callback([options] {
        const int code = run_scenario(*options, std::cout, std::cerr, isatty(STDERR_FILENO) != 0);
        if (code != 0) throw CommandExit(code);
    });
}

}  // namespace plab
