#pragma once
// The plab subcommands. Each add_* registers its subcommand and options on
// the CLI11 app; the subcommand runs from its callback after parsing.
// Problems with the user's input are thrown as plab::Error (exit code 2).
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/numeric/format.h"
#include "engine/backend/backend_choice.h"
#include "engine/train/run_config.h"
#include "ui/records/run_writer.h"
#include "ui/cli/terminal.h"

namespace CLI {
class App;
}

namespace plab {

class Backend;

struct BitsOptions {
    std::vector<std::string> values;  // "-" reads more values from standard input
    std::string format = "all";
    std::string fp8_overflow = "saturate";
    bool json = false;
    ColorMode color = ColorMode::auto_detect;
};

struct RangesOptions {
    bool json = false;
};

struct RunOptions {
    std::string preset = "spirals-amp-fp16";
    std::optional<long long> steps;
    std::vector<std::string> settings;  // --set KEY.PATH=VALUE, in order
    std::string backend = "cpu";  // cpu | cuda | auto
    std::optional<std::uint64_t> seed;
    std::string out;  // empty: standard output
    RecordFormat format = RecordFormat::jsonl;
    std::optional<int> hist_every;
    bool trace_nan = false;
    bool continue_on_nan = false;
    bool dump_preset = false;
    bool timing = false;
    bool quiet = false;
    std::string export_init;  // a folder for the initial state as NumPy files (init_export.h); empty: none
};

struct ClaimsOptions {
    std::vector<std::string> ids;  // empty: every claim
    bool list = false;             // print the table, run nothing
    bool markdown = false;         // print docs/claims.md, run nothing
    std::string backend = "cpu";
};

struct ScenarioOptions {
    std::string name;  // a scenario's preset name
    bool list = false;
    std::string backend = "cpu";  // auto|cpu|cuda (make_run_backend)
};

struct ReplayOptions {
    std::string file;
    std::vector<std::string> settings;  // --set scaler.KEY=VALUE, in order
    std::string grad_format = "auto";   // auto|fp16|bf16|e4m3|e5m2
    std::string out;                    // empty: standard output
    bool search = false;                // propose settings instead of replaying one
    double max_skipped_percent = 1.0;   // with search: the most steps a proposal may skip
};

struct BenchOptions {
    std::string preset = "spirals-amp-fp16";
    int steps = 1000;
    int rounds = 3;
    bool json = false;
    std::string backend = "cpu";  // cpu|cuda|auto, as plab run's --backend
    bool compare_recipes = false;  // FP32, TF32, AMP-FP16, AMP-BF16 side by side instead
    bool long_run = false;         // first and last tenth of one long run instead
    std::string subnormals = "auto";  // with long_run: auto|hardware|exact-lanes
};

struct SweepOptions {
    std::string preset = "spirals-amp-fp16";
    std::vector<std::string> grids;     // --grid FIELD=V1,V2,..., one axis each
    std::optional<std::string> seeds;   // --seeds 1-5; none: the preset's seed, once
    std::optional<int> steps;
    std::vector<std::string> settings;  // --set KEY.PATH=VALUE for every run, before the cell's values
    bool json = false;
    std::string records;                // a folder for every run's records; empty: none
    std::size_t threads = 0;            // 0: sweep_threads' default (one per core; on cuda, 4 at least)
    std::string backend = "cpu";        // cpu|cuda|auto, as plab run's --backend
    bool yes = false;                   // train a grid past kSweepRunsWithoutYes runs
    bool quiet = false;
};

// A command that finished with a non-zero exit code that is not an error
// message (plab run's 3 after --trace-nan found a NaN).

struct CommandExit : std::runtime_error {
    explicit CommandExit(int exit_code) : std::runtime_error("exit"), code(exit_code) {}
    int code;
};

void add_bits_command(CLI::App& app);
void add_ranges_command(CLI::App& app);
void add_run_command(CLI::App& app);
void add_bench_command(CLI::App& app);
void add_presets_command(CLI::App& app);
void add_scenario_command(CLI::App& app);
void add_summary_command(CLI::App& app);
void add_replay_command(CLI::App& app);
void add_sweep_command(CLI::App& app);
void add_claims_command(CLI::App& app);

// The commands themselves, on explicit streams (tests call these directly).
void run_bits(const BitsOptions& options, std::istream& in, std::ostream& out, bool color);
void run_ranges(const RangesOptions& options, std::ostream& out);
// plab claims: 0 every check that ran holds, 1 one does not.
int run_claims(const ClaimsOptions& options, std::ostream& out, std::ostream& log, bool progress);
void run_bench(const BenchOptions& options, std::ostream& out, std::ostream& log);
// plab bits' arguments (after "bits") with its values after a "--", in
// their order, so that -inf and -nan reach it as values, not as options.
std::vector<std::string> bits_arguments(const std::vector<std::string>& args);
// plab bench --compare-recipes (compare_recipes.cpp); an empty preset is the
// seeds' 4096-wide MLP.
void run_recipe_comparison(const BenchOptions& options, std::ostream& out, std::ostream& log);
// plab bench --long-run (long_run_bench.cpp): the step time of the first and
// the last tenth of options.steps steps.
void run_long_run_bench(const BenchOptions& options, std::ostream& out, std::ostream& log);
// Trains `config` (the preset resolved from `options`) and writes its records.
// Returns the exit code (0, or 3 when --trace-nan stopped the run); throws
// plab::Error on bad input and WriteError when the records could not be
// written. `progress` draws a progress bar on `log`; `finish_records` (an
// --out file's commit) runs once the records are flushed, before any
// message says where they went; `index` takes the record's index (record_index.h).
int run_training(const RunOptions& options, const RunConfig& config, std::ostream& records, std::ostream& log,
                 bool progress, const std::function<void()>& finish_records = {}, std::ostream* index = nullptr);
// Prints the scenario's guide, runs its check and prints one line per verdict
// (or the list, with options.list). Returns 0 when every verdict holds, 1 when
// one does not; throws plab::Error for an unknown name. `progress` draws a
// progress line on `log`.
int run_scenario(const ScenarioOptions& options, std::ostream& out, std::ostream& log, bool progress);
// plab summary: the summary of the record at `path` (warnings go to `log`);
// throws plab::Error when it cannot be read or is not a run record.
std::string summarise_record(const std::string& path, std::ostream& log, bool progress);
// plab replay: the predicted records to `records` (or options.out), the
// summary to `log`; throws plab::Error on bad input, WriteError when the
// records could not be written.
int run_replay(const ReplayOptions& options, std::ostream& records, std::ostream& log);
// plab sweep: trains the grid, prints the table (or JSON) to `out` and a
// timing line to `log`. Returns 0, or 128 + the signal that stopped it;
// throws plab::Error on bad input, WriteError when --records failed.
int run_sweep_command(const SweepOptions& options, std::ostream& out, std::ostream& log, bool progress);

}  // namespace plab
