// Commands over a run record: plab summary says what plab run said after
// training; plab replay of a record's own scaler settings gives its own
// trajectory, and other settings another; bad input exits 2 naming it.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <sstream>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/cli_run_util.h"
#include "cli/scaler_refusal.h"

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

// The "step" lines of JSON Lines text.
std::vector<nlohmann::json> steps_in(std::istream& in) {
    std::vector<nlohmann::json> steps;
    for (std::string line; std::getline(in, line);) {
        nlohmann::json j = nlohmann::json::parse(line);
        if (j["type"] == "step") steps.push_back(j);
    }
    return steps;
}

std::vector<nlohmann::json> step_lines(const std::string& path) {
    std::ifstream in(path);
    return steps_in(in);
}

std::vector<nlohmann::json> printed_steps(const std::string& out) {
    std::istringstream in(out);
    return steps_in(in);
}

int skipped_steps(const std::vector<nlohmann::json>& steps) {
    int n = 0;
    for (const auto& s : steps) n += s["skipped"].get<bool>();
    return n;
}

// Each shipped preset whose scaler moves or overflows: trained, then replayed
// under its own settings, step for step the same trajectory.
class ReplayOwnSettings : public ::testing::TestWithParam<const char*> {};

TEST_P(ReplayOwnSettings, GivesTheRecordedTrajectory) {
    const std::filesystem::path dir = scratch_dir();
    const std::string record = (dir / "run.jsonl").string(), replay = (dir / "replay.jsonl").string();
    const Result run = run_plab(std::string("run --preset ") + GetParam() + " --quiet --out '" + record + "'");
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const Result r = run_plab("replay '" + record + "' --out '" + replay + "'");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find("under the record's own scaler settings"), std::string::npos) << r.err;
    const auto recorded = step_lines(record), predicted = step_lines(replay);
    std::filesystem::remove_all(dir);
    ASSERT_EQ(recorded.size(), predicted.size());
    int overflows = 0;
    for (std::size_t i = 0; i < recorded.size(); ++i) {
        for (const char* key : {"step", "scale", "scale_after", "growth_tracker", "found_inf", "skipped", "backoff", "growth"})
            ASSERT_EQ(predicted[i][key], recorded[i][key]) << GetParam() << " step " << i + 1 << " " << key;
        overflows += recorded[i]["found_inf"].get<bool>();
        EXPECT_EQ(predicted[i].contains("overflow"), recorded[i]["found_inf"].get<bool>());
    }
    EXPECT_GT(overflows, 0) << GetParam() << ": the replay should meet overflows";
}

std::string preset_test_name(const ::testing::TestParamInfo<const char*>& param) {
    std::string name = param.param;
    for (char& c : name)
        if (c == '-') c = '_';
    return name;
}

INSTANTIATE_TEST_SUITE_P(Shipped, ReplayOwnSettings,
                         ::testing::Values("scaler-sawtooth", "grad-accumulation", "gradient-census",
                                           "fp16-static-overflow", "overflow-nan", "attention-softmax-overflow"),
                         preset_test_name);

TEST(ReplayCli, ALowerInitialScaleSkipsFewerStepsAndBadInputExitsTwo) {
    const std::filesystem::path dir = scratch_dir();
    const std::string record = (dir / "run.jsonl").string();
    ASSERT_EQ(run_plab("run --preset scaler-sawtooth --quiet --out '" + record + "'").exit_code, 0);
    const Result lower = run_plab("replay '" + record + "' --set scaler.init_scale=1024");
    const Result not_scaler = run_plab("replay '" + record + "' --set optimizer.lr=0.1");
    const Result bad_value = run_plab("replay '" + record + "' --set scaler.growth_interval=0");
    const Result bad_format = run_plab("replay '" + record + "' --grad-format fp64");
    std::filesystem::remove_all(dir);
    ASSERT_EQ(lower.exit_code, 0) << lower.err;
    const auto steps = printed_steps(lower.out);
    ASSERT_FALSE(steps.empty());
    EXPECT_EQ(steps[0]["scale"], 1024);
    EXPECT_LT(skipped_steps(steps), 15);  // the record's own settings skip 15 steps climbing down from 2^24
    EXPECT_NE(lower.err.find("under scaler.init_scale=1024"), std::string::npos) << lower.err;
    // Histograms every 5 steps of 600: a smaller scale leaves more gradient values subnormal.
    const auto shares = lower.err.find("gradient values flushed to zero / subnormal in fp16, over 120 histogram steps: ");
    ASSERT_NE(shares, std::string::npos) << lower.err;
    double was_flush = 0, was_sub = 0, will_flush = 0, will_sub = 0;
    ASSERT_EQ(std::sscanf(lower.err.c_str() + lower.err.find("recorded ", shares), "recorded %lf%% / %lf%%, predicted %lf%% / %lf%%",
                          &was_flush, &was_sub, &will_flush, &will_sub),
              4)
        << lower.err;
    EXPECT_GT(will_sub, was_sub);
    EXPECT_EQ(not_scaler.exit_code, 2);
    EXPECT_NE(not_scaler.err.find("--set: 'optimizer.lr=0.1' is not a scaler setting"), std::string::npos);
    EXPECT_EQ(bad_value.exit_code, 2);
    EXPECT_NE(bad_value.err.find("scaler.growth_interval"), std::string::npos) << bad_value.err;
    EXPECT_EQ(bad_format.exit_code, 2);
    EXPECT_NE(bad_format.err.find("--grad-format: 'fp64' is not a gradient format; allowed: auto|fp16|bf16|e4m3|e5m2"),
              std::string::npos)
        << bad_format.err;
}

TEST(ReplayCli, ASettingTheRecordsScalerKindIgnoresNeedsAKindThatReadsIt) {
    const std::filesystem::path dir = scratch_dir();
    const std::string record = (dir / "run.jsonl").string();
    ASSERT_EQ(run_plab("run --preset spirals-bf16 --steps 20 --quiet --out '" + record + "'").exit_code, 0);
    const Result ignored = run_plab("replay '" + record + "' --set scaler.init_scale=2^24");
    const Result with_kind = run_plab("replay '" + record + "' --set scaler.kind=dynamic --set scaler.init_scale=2^24");
    std::filesystem::remove_all(dir);
    EXPECT_EQ(ignored.exit_code, 2);
    EXPECT_EQ(ignored.out, "");
    EXPECT_EQ(ignored.err, init_scale_ignored_by_no_scaler("2^24"));
    ASSERT_EQ(with_kind.exit_code, 0) << with_kind.err;
    const auto steps = printed_steps(with_kind.out);
    ASSERT_FALSE(steps.empty());
    EXPECT_EQ(steps[0]["scale"], 16777216);
}

TEST(ReplayCli, SearchProposesSettingsWithinTheSkippedStepsAllowedAsCode) {
    const std::filesystem::path dir = scratch_dir();
    const std::string record = (dir / "run.jsonl").string();
    ASSERT_EQ(run_plab("run --preset scaler-sawtooth --quiet --out '" + record + "'").exit_code, 0);
    const Result r = run_plab("replay '" + record + "' --search --max-skipped 0.5");
    const Result with_set = run_plab("replay '" + record + "' --search --set scaler.init_scale=2");
    std::filesystem::remove_all(dir);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const auto steps = printed_steps(r.out);
    EXPECT_EQ(steps.size(), 600u);
    EXPECT_LE(skipped_steps(steps), 3);  // 0.5% of 600: the records written are the proposal's
    EXPECT_NE(r.err.find("skip at most 0.5% of the steps"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("scaler = torch.amp.GradScaler(\n    \"cuda\",\n    init_scale="), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("\"initial_scale_power\": "), std::string::npos) << r.err;
    EXPECT_EQ(with_set.exit_code, 2);
    EXPECT_NE(with_set.err.find("--search: proposes the settings itself; leave out --set"), std::string::npos);
}

TEST(ExportInitCli, WritesTheStartingPointOfAPlainMlpAndRefusesOthers) {
    const std::filesystem::path dir = scratch_dir();
    const Result mlp = run_plab("run --preset spirals-fp32 --steps 3 --quiet --export-init '" + (dir / "init").string() +
                                "' --out '" + (dir / "run.jsonl").string() + "'");
    const Result attention = run_plab("run --preset attention-softmax-overflow --steps 1 --quiet --export-init '" +
                                      (dir / "other").string() + "'");
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(dir / "init")) files.push_back(e.path().filename().string());
    std::sort(files.begin(), files.end());
    const std::string batches = slurp(dir / "init" / "batches.npy");
    std::filesystem::remove_all(dir);
    ASSERT_EQ(mlp.exit_code, 0) << mlp.err;
    EXPECT_EQ(files, (std::vector<std::string>{"batches.npy", "fc1.bias.npy", "fc1.weight.npy", "fc2.bias.npy",
                                               "fc2.weight.npy", "fc3.bias.npy", "fc3.weight.npy", "train_x.npy",
                                               "train_y.npy"}));
    ASSERT_EQ(batches.size(), 128u + 3u * 128u * 4u);  // a 128-byte .npy header, then 3 steps x 128 int32 rows
    EXPECT_EQ(batches.substr(0, 6), "\x93NUMPY");
    EXPECT_NE(batches.find("'shape': (3,128)"), std::string::npos) << batches.substr(0, 128);
    EXPECT_EQ(attention.exit_code, 2);
    EXPECT_NE(attention.err.find("--export-init: exports plain MLPs only"), std::string::npos) << attention.err;
}

}  // namespace
}  // namespace plab::cli_test
