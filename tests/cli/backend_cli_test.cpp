// plab run --backend auto|cpu|cuda as a user runs it, on whatever this build
// and machine have: `plab --version` says whether CUDA was built and which
// device it found, and each test checks what that situation must give.
#include <gtest/gtest.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_run_util.h"

namespace plab {
namespace {

namespace fs = std::filesystem;
using cli_test::Result;
using cli_test::run_plab;

// What `plab --version` reports about CUDA.
enum class CudaSituation { not_built, no_device, device };

struct Situation {
    CudaSituation cuda;
    std::string device_text;  // after "CUDA: built; " (the device's name first) when there is one
};

Situation cuda_situation() {
    const Result r = run_plab("--version");
    EXPECT_EQ(r.exit_code, 0) << r.err;
    const std::string built = "CUDA: built; ";
    if (r.out.find("CUDA: not built") != std::string::npos) return {CudaSituation::not_built, ""};
    const std::size_t at = r.out.find(built);
    EXPECT_NE(at, std::string::npos) << r.out;
    const std::string rest = r.out.substr(at + built.size());
    if (rest.rfind("no CUDA device found", 0) == 0) return {CudaSituation::no_device, ""};
    return {CudaSituation::device, rest};
}

std::string backend_of_header(const std::string& records) {
    const nlohmann::json header = nlohmann::json::parse(records.substr(0, records.find('\n')));
    EXPECT_EQ(header.at("type"), "run");
    return header.at("backend").get<std::string>();
}

TEST(BackendCli, CudaWithoutADeviceExitsTwoWithOneLineSayingWhatToUse) {
    const Situation s = cuda_situation();
    if (s.cuda == CudaSituation::device) GTEST_SKIP() << "a CUDA device is present: " << s.device_text;
    const std::string want = s.cuda == CudaSituation::not_built
                                     ? "plab: this build has no CUDA backend; use --backend cpu\n"
                                     : "plab: no CUDA device found; use --backend cpu\n";
    const Result r = run_plab("run --backend cuda --steps 2");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, want);
    // Found before anything runs: --dump-preset fails the same way, and --out is never created.
    EXPECT_EQ(run_plab("run --dump-preset --backend cuda").err, want);
    const fs::path dir = cli_test::scratch_dir();
    const Result to_file = run_plab("run --backend cuda --steps 2 --out '" + (dir / "r.jsonl").string() + "'");
    EXPECT_EQ(to_file.exit_code, 2);
    EXPECT_TRUE(fs::is_empty(dir));
    fs::remove_all(dir);
}

// plab bench takes the same --backend, checked before anything runs.
TEST(BackendCli, BenchTakesTheSameBackendChoice) {
    const Situation s = cuda_situation();
    EXPECT_EQ(run_plab("bench --backend gpu --steps 10 --rounds 1").err,
              "plab: --backend: 'gpu' is not a backend; allowed: auto|cpu|cuda\n");
    const Result cpu = run_plab("bench --backend cpu --steps 10 --rounds 1 --json");
    ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
    EXPECT_EQ(nlohmann::json::parse(cpu.out).at("backend"), "CPU (exact emulation)");
    EXPECT_EQ(nlohmann::json::parse(cpu.out).at("host_waits_per_step"), 0.0);  // the CPU never waits for a device
    // Every step replays its recorded graph but the first (which allocates the buffers).
    EXPECT_DOUBLE_EQ(nlohmann::json::parse(cpu.out).at("replayed_step_frac").get<double>(), 0.9);
    // Each variant timed is described, under the same names (tools/bench-table writes its rows from these).
    const nlohmann::json bench = nlohmann::json::parse(cpu.out);
    ASSERT_EQ(bench.at("variants").size(), bench.at("steps_per_s").size());
    for (const auto& [name, rate] : bench.at("steps_per_s").items()) {
        EXPECT_GT(rate.get<double>(), 0.0) << name;
        EXPECT_FALSE(bench.at("variants").at(name).get<std::string>().empty()) << name;
    }
    EXPECT_EQ(bench.at("variants").at("fp32"), "plain FP32 (twin and telemetry off)");
    if (s.cuda == CudaSituation::device) GTEST_SKIP() << "a CUDA device is present: " << s.device_text;
    const Result cuda = run_plab("bench --backend cuda --steps 10 --rounds 1 --json");
    EXPECT_EQ(cuda.exit_code, 2);
    EXPECT_EQ(cuda.out, "");
    EXPECT_NE(cuda.err.find("; use --backend cpu\n"), std::string::npos) << cuda.err;
}

// plab scenario too (so a scenario can be checked on the GPU), found before
// the guide is printed: a missing device is the only output.
TEST(BackendCli, ScenarioTakesTheSameBackendChoice) {
    const Situation s = cuda_situation();
    const Result bad = run_plab("scenario grad-accumulation --backend gpu");
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_EQ(bad.out, "");
    EXPECT_EQ(bad.err, "plab: --backend: 'gpu' is not a backend; allowed: auto|cpu|cuda\n");
    const Result cpu = run_plab("scenario grad-accumulation --backend cpu");
    ASSERT_EQ(cpu.exit_code, 0) << cpu.err;
    EXPECT_NE(cpu.out.find("the scenario holds (4 of 4 checks, on CPU (exact emulation))"), std::string::npos)
        << cpu.out;
    if (s.cuda == CudaSituation::device) GTEST_SKIP() << "a CUDA device is present: " << s.device_text;
    const Result cuda = run_plab("scenario grad-accumulation --backend cuda");
    EXPECT_EQ(cuda.exit_code, 2);
    EXPECT_EQ(cuda.out, "");
    EXPECT_NE(cuda.err.find("; use --backend cpu\n"), std::string::npos) << cuda.err;
}

// plab sweep too, with plab run's messages, found before anything trains or
// --records makes its folder; its help teaches the choice.
TEST(BackendCli, SweepTakesTheSameBackendChoice) {
    const Situation s = cuda_situation();
    const fs::path dir = cli_test::scratch_dir();
    const std::string sweep = "sweep --grid scaler.init_scale=2^8,2^16 --steps 3 --quiet --records '" +
                              (dir / "runs").string() + "' --backend ";
    const Result bad = run_plab(sweep + "bogus");
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_EQ(bad.out, "");
    EXPECT_EQ(bad.err, "plab: --backend: 'bogus' is not a backend; allowed: auto|cpu|cuda\n");
    EXPECT_FALSE(fs::exists(dir / "runs"));
    const Result help = run_plab("sweep --help");
    EXPECT_NE(help.out.find("auto (cuda when a GPU is present, else cpu)"), std::string::npos) << help.out;
    EXPECT_NE(help.out.find("--backend cuda"), std::string::npos) << help.out;
    if (s.cuda == CudaSituation::device) GTEST_SKIP() << "a CUDA device is present: " << s.device_text;
    const Result cuda = run_plab(sweep + "cuda");
    EXPECT_EQ(cuda.exit_code, 2);
    EXPECT_EQ(cuda.out, "");
    EXPECT_EQ(cuda.err, run_plab("run --backend cuda --steps 2").err);
    EXPECT_NE(cuda.err.find("; use --backend cpu\n"), std::string::npos) << cuda.err;
    EXPECT_FALSE(fs::exists(dir / "runs"));
    fs::remove_all(dir);
}

TEST(BackendCli, AutoPicksTheGpuWhenThereIsOneElseTheCpu) {
    const Situation s = cuda_situation();
    const Result r = run_plab("run --backend auto --steps 3 --quiet");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string backend = backend_of_header(r.out);
    if (s.cuda == CudaSituation::device) {
        EXPECT_NE(backend, "CPU (exact emulation)");
        EXPECT_EQ(s.device_text.rfind(backend + " (sm_", 0), 0u) << backend << " vs " << s.device_text;
    } else {
        EXPECT_EQ(backend, "CPU (exact emulation)");
        // The very run --backend cpu makes, record for record.
        EXPECT_EQ(r.out, run_plab("run --backend cpu --steps 3 --quiet").out);
    }
}

TEST(BackendCli, SummaryNamesTheBackendAndHelpTeachesTheChoices) {
    const Result r = run_plab("run --backend cpu --steps 2");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(r.err.find(" steps/s) on CPU (exact emulation)\n"), std::string::npos) << r.err;
    const Result help = run_plab("run --help");
    EXPECT_NE(help.out.find("auto (cuda when a GPU is present, else cpu)"), std::string::npos) << help.out;
    EXPECT_NE(help.out.find("--backend auto"), std::string::npos) << help.out;
}

// plab bench --compare-recipes: the ledger of each recipe in JSON (bytes by
// class adding up to the total, AMP below FP32), timed only on a GPU; asking
// for the GPU where there is none is exit 2.
TEST(BackendCli, CompareRecipesGivesTheLedgerAndTimesOnlyOnAGpu) {
    const Situation s = cuda_situation();
    const Result r = run_plab("bench --compare-recipes --backend cpu --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["model"], "2-4096-4096-4096-4096-3 MLP, batch 8192, AdamW");
    EXPECT_TRUE(j["backend"].is_null());
    ASSERT_EQ(j["recipes"].size(), 4u);
    for (const auto& recipe : j["recipes"]) {
        std::int64_t sum = 0;
        for (const auto& [name, bytes] : recipe["bytes"].items()) sum += bytes.get<std::int64_t>();
        EXPECT_EQ(sum, recipe["total_bytes"].get<std::int64_t>()) << recipe["recipe"];
        EXPECT_TRUE(recipe["step_ms"].is_null());
    }
    EXPECT_EQ(j["recipes"][0]["recipe"], "fp32");
    EXPECT_LT(j["recipes"][2]["total_bytes"].get<std::int64_t>(), j["recipes"][0]["total_bytes"].get<std::int64_t>());
    const Result text = run_plab("bench --compare-recipes");
    ASSERT_EQ(text.exit_code, 0) << text.err;
    if (s.cuda != CudaSituation::device) {
        EXPECT_NE(text.out.find("Step times and accuracy need a GPU: none here"), std::string::npos) << text.out;
        EXPECT_EQ(run_plab("bench --compare-recipes --backend cuda").exit_code, 2);
    }
    EXPECT_EQ(run_plab("bench --compare-recipes --steps 2").exit_code, 2);
    const Result gpt = run_plab("bench --compare-recipes --preset tiny-gpt-amp-fp16");
    EXPECT_EQ(gpt.exit_code, 2);
    EXPECT_NE(gpt.err.find("for MLPs only, and this model has attention blocks"), std::string::npos) << gpt.err;
}

}  // namespace
}  // namespace plab
