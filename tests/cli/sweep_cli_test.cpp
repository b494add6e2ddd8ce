// `plab sweep` as a user runs it: each cell's numbers against the same
// settings trained by `plab run` and measured here from its records, the
// records --records writes against plab run's byte for byte, and exit code
// 2 with a message naming the axis for every kind of bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/cli_run_util.h"

namespace plab {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using cli_test::run_plab;
using cli_test::scratch_dir;
using cli_test::slurp;

// The grid: 2^24 overflows at the start and backs off, interval 10 grows
// and overflows again, so skips, growth and the twin gap all differ by cell.
constexpr const char* kGrid = "--grid scaler.init_scale=2^16,2^24 --grid scaler.growth_interval=10,300";
constexpr int kSteps = 150;

// What the sweep reports for one run, measured here from a plab run record
// under PyTorch's dynamic rule (the preset's): its floor is a scale of 0
// and its ceiling a scale that doubles to Inf.
struct Measured {
    std::int64_t skipped = 0, floor_steps = 0, ceiling_steps = 0;
    double zeros = 0, values = 0;
    double twin_flushed = 0, twin_values = 0;  // FP16 flushes of the twin's gradients times S (hist lines)
    double final_loss = 0;
    std::optional<double> acc, acc_ref;
    std::optional<std::int64_t> first_growth;
};

Measured measure_record(const std::string& jsonl) {
    Measured m;
    std::istringstream lines(jsonl);
    for (std::string line; std::getline(lines, line);) {
        const json r = json::parse(line);
        if (r["type"] == "hist")
            for (const json& layer : r["layers"]) {
                const json& g = layer["twin"]["stats"]["grad"];
                m.twin_flushed += g["fp16"]["underflow"].get<double>() * g["count"].get<double>();
                m.twin_values += g["count"].get<double>();
            }
        if (r["type"] != "step") continue;
        m.skipped += r["skipped"].get<bool>();
        const float scale = r["scale"].get<float>();
        m.floor_steps += scale == 0.0f;
        m.ceiling_steps += std::isinf(scale * 2.0f);
        for (const json& layer : r["layers"]) {
            m.zeros += layer["grad"]["zeros"].get<double>();
            m.values += layer["grad"]["count"].get<double>();
        }
        m.final_loss = r["loss"].get<double>();
        if (r.contains("acc")) m.acc = r["acc"].get<double>();
        if (r.contains("acc_ref")) m.acc_ref = r["acc_ref"].get<double>();
        if (r["growth"].get<bool>() && !m.first_growth) m.first_growth = r["step"].get<std::int64_t>();
    }
    return m;
}

// The run of the sweep's JSON for these values and seed.
const json& find_run(const json& sweep, const std::string& init_scale, const std::string& interval, int seed) {
    for (const json& cell : sweep["cells"])
        if (cell["values"]["scaler.init_scale"] == init_scale && cell["values"]["scaler.growth_interval"] == interval)
            for (const json& run : cell["runs"])
                if (run["seed"] == seed) return run;
    throw std::runtime_error("no such run in the sweep");
}

class SweepCli : public ::testing::Test {
protected:
    static void SetUpTestSuite() {
        dir_ = new fs::path(scratch_dir());
        // --backend cpu, the default, named: the runs below are plab run's on the same backend.
        result_ = new cli_test::Result(run_plab(std::string("sweep --backend cpu ") + kGrid + " --seeds 1-2" +
                                                " --steps " + std::to_string(kSteps) + " --json --quiet --records '" +
                                                (*dir_ / "records").string() + "'"));
    }
    static void TearDownTestSuite() {
        fs::remove_all(*dir_);
        delete dir_;
        delete result_;
    }
    static fs::path* dir_;
    static cli_test::Result* result_;
};
fs::path* SweepCli::dir_ = nullptr;
cli_test::Result* SweepCli::result_ = nullptr;

TEST_F(SweepCli, EveryCellAndSeedIsOneRun) {
    ASSERT_EQ(result_->exit_code, 0) << result_->err;
    const json sweep = json::parse(result_->out);
    ASSERT_EQ(sweep["cells"].size(), 4u);
    EXPECT_EQ(sweep["seeds"], json::parse("[1,2]"));
    EXPECT_EQ(sweep["spread"], "min/max over the seeds");
    std::size_t records = 0, indexes = 0;  // each run's record, and its index beside it
    for (const auto& entry : fs::directory_iterator(*dir_ / "records")) {
        const bool index = entry.path().extension() == ".index";
        (index ? indexes : records) += 1;
        if (!index) {
            EXPECT_TRUE(fs::exists(entry.path().string() + ".index")) << entry.path();
        }
    }
    EXPECT_EQ(records, 8u);
    EXPECT_EQ(indexes, 8u);
}

// The sweep's numbers for a cell are plab run's: its records byte for byte,
// and every measure taken from them here.
TEST_F(SweepCli, ACellIsWhatPlabRunGives) {
    ASSERT_EQ(result_->exit_code, 0) << result_->err;
    const json sweep = json::parse(result_->out);
    struct Case {
        const char *init_scale, *interval, *file;
        int seed;
    };
    const Case cases[] = {
        {"2^24", "10", "6_scaler.init_scale=2^24,scaler.growth_interval=10,seed=2.jsonl", 2},
        {"2^16", "10", "1_scaler.init_scale=2^16,scaler.growth_interval=10,seed=1.jsonl", 1},
        {"2^24", "300", "7_scaler.init_scale=2^24,scaler.growth_interval=300,seed=1.jsonl", 1},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.file);
        const fs::path out = *dir_ / "single.jsonl";
        const cli_test::Result single =
            run_plab(std::string("run --set scaler.init_scale=") + c.init_scale + " --set scaler.growth_interval=" +
                     c.interval + " --steps " + std::to_string(kSteps) + " --seed " + std::to_string(c.seed) +
                     " --quiet --out '" + out.string() + "'");
        ASSERT_EQ(single.exit_code, 0) << single.err;
        const std::string record = slurp(out);
        EXPECT_EQ(slurp(*dir_ / "records" / c.file), record);
        const Measured m = measure_record(record);
        const json& run = find_run(sweep, c.init_scale, c.interval, c.seed);
        EXPECT_EQ(run["steps"], kSteps);
        EXPECT_EQ(run["skipped"], m.skipped);
        EXPECT_EQ(run["floor_steps"], m.floor_steps);
        EXPECT_EQ(run["ceiling_steps"], m.ceiling_steps);
        EXPECT_EQ(run["grad_zero_share"].get<double>(), m.zeros / m.values);
        ASSERT_GT(m.twin_values, 0);
        EXPECT_EQ(run["twin_flush_share"].get<double>(), m.twin_flushed / m.twin_values);
        EXPECT_EQ(run["final_loss"].get<double>(), m.final_loss);
        ASSERT_TRUE(m.acc && m.acc_ref);
        EXPECT_EQ(run["acc"].get<double>(), *m.acc);
        EXPECT_EQ(run["acc_ref"].get<double>(), *m.acc_ref);
        EXPECT_EQ(run["acc_gap"].get<float>(), static_cast<float>(*m.acc_ref) - static_cast<float>(*m.acc));
        if (m.first_growth)
            EXPECT_EQ(run["first_growth_step"], *m.first_growth);
        else
            EXPECT_TRUE(run["first_growth_step"].is_null());
    }
    // The grid is chosen so that cells differ where the sweep is meant to tell them apart.
    EXPECT_GT(find_run(sweep, "2^24", "300", 1)["skipped"].get<int>(), 0);
    EXPECT_EQ(find_run(sweep, "2^16", "10", 1)["first_growth_step"], 10);
    EXPECT_TRUE(find_run(sweep, "2^16", "300", 1)["first_growth_step"].is_null());
}

// A cell's summary is the mean and range of its runs' own figures.
TEST_F(SweepCli, SummaryIsOverTheSeeds) {
    ASSERT_EQ(result_->exit_code, 0) << result_->err;
    for (const json& cell : json::parse(result_->out)["cells"]) {
        const double a = cell["runs"][0]["final_loss"].get<double>(), b = cell["runs"][1]["final_loss"].get<double>();
        EXPECT_EQ(cell["summary"]["final_loss"]["mean"].get<double>(), (a + b) / 2);
        EXPECT_EQ(cell["summary"]["final_loss"]["min"].get<double>(), std::min(a, b));
        EXPECT_EQ(cell["summary"]["final_loss"]["max"].get<double>(), std::max(a, b));
        EXPECT_EQ(cell["summary"]["final_loss"]["runs"], 2);
    }
}

TEST(SweepCliTable, OneRowPerCellUnderTheAxes) {
    const cli_test::Result r = run_plab("sweep --grid scaler.growth_interval=5,2^3 --steps 20 --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    std::istringstream lines(r.out);
    std::string title, header, first, second;
    std::getline(lines, title);
    std::getline(lines, header);
    std::getline(lines, first);
    std::getline(lines, second);
    EXPECT_EQ(title, "spirals-amp-fp16, 20 steps, the preset's seed");
    EXPECT_EQ(header.rfind("scaler.growth_interval  skipped  at floor  at ceiling  grad zeros  twin flush  final loss", 0), 0u)
        << header;
    EXPECT_EQ(first.rfind("5 ", 0), 0u) << first;
    EXPECT_EQ(second.rfind("2^3 ", 0), 0u) << second;
}

// ---- bad input: exit 2, one line naming the axis and what is allowed ----

void expect_refused(const std::string& args, const std::string& message) {
    const cli_test::Result r = run_plab("sweep " + args + " --steps 5");
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << "\n" << r.err;
    EXPECT_EQ(r.err.find('\n'), r.err.size() - 1) << "one line: " << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
}

TEST(SweepCliRefuses, AnEmptyAxis) {
    expect_refused("--grid scaler.init_scale=", "plab: --grid scaler.init_scale: the axis has no values; give FIELD=V1,V2,...");
    expect_refused("--grid scaler.init_scale=2^8,", "--grid scaler.init_scale: '2^8,' has an empty value");
}

TEST(SweepCliRefuses, AnUnknownField) {
    expect_refused("--grid scaler.init_scael=2^8",
                   "--grid scaler.init_scael=2^8: scaler.init_scael: unknown key; allowed keys: kind, init_scale,");
}

TEST(SweepCliRefuses, AValueOutOfRange) {
    expect_refused("--grid scaler.growth_interval=50,0",
                   "--grid scaler.growth_interval=0: scaler.growth_interval: 0 is out of range; allowed ");
    expect_refused("--grid scaler.init_scale=2^8,-1", "--grid scaler.init_scale=-1: scaler.init_scale: -1 is out of range");
    expect_refused("--grid optimizer.kind=sgd,adam", "--grid optimizer.kind=adam: optimizer.kind: \"adam\" is not allowed; allowed ");
}

TEST(SweepCliRefuses, ADuplicateAxis) {
    expect_refused("--grid scaler.init_scale=2^8 --grid scaler.init_scale=2^16",
                   "--grid scaler.init_scale: the axis is given twice");
    expect_refused("--grid seed=1,2 --seeds 1-3", "--grid seed: the seeds are given by --seeds too");
}

TEST(SweepCliRefuses, AnAxisNoRunReads) {
    // spirals-bf16 trains without a scaler: every cell would be the same run.
    expect_refused("--preset spirals-bf16 --grid scaler.init_scale=2^8,2^16",
                   "plab: --grid scaler.init_scale=2^8,2^16: changes nothing: init_scale is read by the static, "
                   "dynamic and hysteresis scalers, and every run's scaler kind is none; set a kind that reads it "
                   "too, e.g. --set scaler.kind=dynamic");
    expect_refused("--preset spirals-bf16 --grid scaler.kind=none,static --grid scaler.growth_interval=50,200",
                   "--grid scaler.growth_interval=50,200: changes nothing: growth_interval is read by the dynamic and "
                   "hysteresis scalers, and the runs' scaler kinds are none and static;");
    expect_refused("--preset spirals-bf16 --set scaler.backoff_factor=0.25 --grid optimizer.lr=0.01,0.02",
                   "--set scaler.backoff_factor=0.25: changes nothing");
    // A kind axis that gives some cells a scaler makes the field worth sweeping.
    const cli_test::Result r = run_plab(
        "sweep --preset spirals-bf16 --grid scaler.kind=none,dynamic --grid scaler.growth_interval=50,200 --steps 5");
    EXPECT_EQ(r.exit_code, 0) << r.err;
}

TEST(SweepCliRefuses, ALargeGridWithoutYes) {
    expect_refused("--grid scaler.growth_interval=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21 --seeds 1-20",
                   "plab sweep: the grid is 420 runs (21 cells x 20 seeds); more than 400 runs needs --yes");
}

TEST(SweepCliRefuses, NoAxisBadSeedsAndBadNumbers) {
    expect_refused("", "plab sweep: no --grid axis; give at least one");
    expect_refused("--grid seed=1,2 --seeds 3-1", "--seeds: 3-1 runs backwards");
    expect_refused("--grid seed=1 --threads 0", "--threads: 0 is out of range; allowed 1..1024");
}

TEST(SweepCliHelp, TeachesWithAnExample) {
    const cli_test::Result r = run_plab("sweep --help");
    EXPECT_EQ(r.exit_code, 0);
    EXPECT_NE(r.out.find("Examples:"), std::string::npos);
    EXPECT_NE(r.out.find("plab sweep --grid scaler.init_scale=2^8,2^12,2^16,2^20,2^24 --grid "
                         "scaler.growth_interval=50,200,1000,2000"),
              std::string::npos);
    EXPECT_NE(r.out.find("--records"), std::string::npos);
}

}  // namespace
}  // namespace plab
