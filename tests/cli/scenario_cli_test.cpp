// `plab scenario` as a user runs it: --list, a scenario's guide and verdicts,
// and the exit codes 0 (holds), 1 (does not hold) and 2 (unknown name).
#include <gtest/gtest.h>

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli/cli_run_util.h"
#include "engine/scenario/scenario.h"
#include "engine/train/preset_io.h"

namespace plab {
namespace {

namespace fs = std::filesystem;
using cli_test::Result;
using cli_test::run_plab;

// `plab ARGS` with PLAB_PRESET_DIR set to `dir` (its presets shadow the shipped ones).
Result run_plab_with_presets(const fs::path& dir, const std::string& args) {
    const fs::path out = dir / "out", err = dir / "err";
    const std::string cmd = "PLAB_PRESET_DIR='" + dir.string() + "' '" + std::string(PLAB_EXE) + "' " + args +
                            " < /dev/null > '" + out.string() + "' 2> '" + err.string() + "'";
    const int status = std::system(cmd.c_str());
    return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, cli_test::slurp(out), cli_test::slurp(err)};
}

TEST(ScenarioCli, ListNamesEveryScenarioWithItsDescription) {
    const Result r = run_plab("scenario --list");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("NAME", 0), 0u) << r.out;
    ASSERT_GT(scenario_checks().size(), 0u);
    for (const ScenarioEntry& e : scenario_checks()) {
        const std::string name(e.preset);
        const std::size_t at = r.out.find("\n" + name + " ");
        ASSERT_NE(at, std::string::npos) << name << "\n" << r.out;
        const std::size_t end = r.out.find('\n', at + 1);
        EXPECT_NE(r.out.substr(at, end - at).find(load_preset(name).description), std::string::npos) << name;
    }
}

TEST(ScenarioCli, UnknownNameExitsTwoAndListsTheScenarios) {
    const Result r = run_plab("scenario no-such-scenario");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err.rfind("plab: unknown scenario \"no-such-scenario\"; scenarios: ", 0), 0u) << r.err;
    for (const ScenarioEntry& e : scenario_checks())
        EXPECT_NE(r.err.find(std::string(e.preset)), std::string::npos) << e.preset;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1);  // one line
    // No name at all is bad input too.
    EXPECT_EQ(run_plab("scenario").exit_code, 2);
}

TEST(ScenarioCli, HoldingScenarioPrintsGuideAndTicksAndExitsZero) {
    const Result r = run_plab("scenario scaler-sawtooth");
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const RunConfig preset = load_preset("scaler-sawtooth");
    ASSERT_FALSE(preset.guide.empty());
    // The description, then the guide as text (its blank lines kept, not JSON escapes).
    EXPECT_EQ(r.out.rfind("scaler-sawtooth: " + preset.description + "\n\n" + preset.guide + "\n\n", 0), 0u) << r.out;
    EXPECT_NE(r.out.find("\n\u2713 "), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("\u2717"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("scaler-sawtooth: the scenario holds"), std::string::npos) << r.out;
    EXPECT_EQ(r.err, "");  // not a terminal: no progress line
}

// A scenario with a table prints it after the guide and before the verdicts.
TEST(ScenarioCli, TablePrecedesTheVerdicts) {
    const Result r = run_plab("scenario memory-ledger");
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    const std::size_t header = r.out.find("\n  recipe "), bert = r.out.find("\nBERT-Large (24 layers");
    const std::size_t amp = r.out.find("\n  amp-fp16 "), verdict = r.out.find("\n\u2713 ");
    ASSERT_NE(header, std::string::npos) << r.out;
    ASSERT_NE(bert, std::string::npos) << r.out;
    ASSERT_NE(amp, std::string::npos) << r.out;
    ASSERT_NE(verdict, std::string::npos) << r.out;
    EXPECT_LT(header, verdict);
    EXPECT_LT(bert, verdict);
    EXPECT_GT(header, r.out.find(load_preset("memory-ledger").guide));
}

// A shadowing preset file that trains too few steps to saw: the check says so and exits 1.
TEST(ScenarioCli, FailingScenarioCrossesItAndExitsOne) {
    const fs::path dir = cli_test::scratch_dir();
    RunConfig short_run = load_preset("scaler-sawtooth");
    short_run.steps = 60;
    std::ofstream(dir / "scaler-sawtooth.json") << run_config_to_json(short_run, true);
    const Result r = run_plab_with_presets(dir, "scenario scaler-sawtooth");
    EXPECT_EQ(r.exit_code, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("\n\u2717 "), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("the scenario does NOT hold"), std::string::npos) << r.out;
    fs::remove_all(dir);
}

TEST(ScenarioCli, HelpHasExamplesAndExitCodes) {
    const Result r = run_plab("scenario --help");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const char* needle : {"plab scenario --list", "plab scenario underflow-no-scaling", "Exit codes: 0"})
        EXPECT_NE(r.out.find(needle), std::string::npos) << needle;
    EXPECT_NE(run_plab("--help").out.find("scenario"), std::string::npos);
}

}  // namespace
}  // namespace plab
