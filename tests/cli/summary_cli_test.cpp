// plab summary: a record read back says what plab run said after training,
// and a file that is not a record exits 2 with its line named.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "cli/cli_run_util.h"

namespace plab::cli_test {
namespace {

// The summary without its first line's timing: "NAME: N steps in ... on B" -> "NAME: N steps on B".
std::string without_timing(const std::string& text) {
    const auto in = text.find(" steps in ");
    const auto on = text.find(" on ", in);
    return in == std::string::npos || on == std::string::npos ? text : text.substr(0, in + 6) + text.substr(on);
}

TEST(SummaryCli, SaysWhatTheRunSaidAfterTraining) {
    const std::filesystem::path dir = scratch_dir();
    const std::string file = (dir / "run.jsonl").string();
    const Result run = run_plab("run --preset scaler-sawtooth --steps 300 --out '" + file + "'");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const Result summary = run_plab("summary '" + file + "'");
    int hist_lines = 0;
    std::ifstream records(file);
    for (std::string line; std::getline(records, line);) hist_lines += line.rfind("{\"type\":\"hist\"", 0) == 0;
    std::filesystem::remove_all(dir);
    ASSERT_EQ(summary.exit_code, 0) << summary.err;
    const std::string expected = without_timing(run.err);
    ASSERT_NE(expected.find("backoffs"), std::string::npos) << run.err;
    // The same lines but the last, which says where the records are and how many histogram lines they hold.
    EXPECT_EQ(summary.out.substr(0, summary.out.rfind("  records: ")), expected.substr(0, expected.rfind("  records: ")));
    ASSERT_GT(hist_lines, 0);
    EXPECT_NE(summary.out.find("(" + std::to_string(hist_lines) + " histogram lines)"), std::string::npos) << summary.out;
}

TEST(SummaryCli, ANonRecordExitsTwoNamingTheLine) {
    const std::filesystem::path dir = scratch_dir();
    const std::string file = (dir / "table.csv").string();
    std::ofstream(file) << "step,loss\n1,0.5\n";
    const Result r = run_plab("summary '" + file + "'");
    const Result missing = run_plab("summary '" + (dir / "none.jsonl").string() + "'");
    std::filesystem::remove_all(dir);
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_NE(r.err.find(file + " line 1: not a run record (not JSON Lines)"), std::string::npos) << r.err;
    EXPECT_EQ(missing.exit_code, 2);
    EXPECT_NE(missing.err.find("cannot be opened for reading"), std::string::npos) << missing.err;
}

}  // namespace
}  // namespace plab::cli_test
