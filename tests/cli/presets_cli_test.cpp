// `plab presets` as a user runs it: the table, the JSON list, --show, and the
// exit code 2 with a one-line reason for a bad preset.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/cli_run_util.h"
#include "cli/scaler_refusal.h"
#include "engine/scenario/scenario.h"
#include "engine/train/preset_io.h"

namespace plab {
namespace {

namespace fs = std::filesystem;
using cli_test::Result;
using cli_test::run_plab;
using cli_test::scratch_dir;
using cli_test::init_scale_ignored_by_no_scaler;

// The shipped presets as the source tree's directory lists them, sorted (scenarios keep adding some).
std::vector<std::string> shipped() {
    std::vector<std::string> names;
    for (const fs::directory_entry& e : fs::directory_iterator(preset_dirs().at(0)))
        if (e.path().extension() == ".json") names.push_back(e.path().stem().string());
    std::sort(names.begin(), names.end());
    return names;
}
const std::vector<std::string> kShipped = shipped();

TEST(PresetsCli, TableListsTheShippedPresets) {
    const Result r = run_plab("presets");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_EQ(r.out.rfind("NAME", 0), 0u) << r.out;
    for (const std::string& name : kShipped) {
        // One row per preset: the name, then its description on the same line.
        const std::string description = load_preset(name).description;
        const std::size_t at = r.out.find(std::string("\n") + name + " ");
        ASSERT_NE(at, std::string::npos) << name << "\n" << r.out;
        const std::size_t end = r.out.find('\n', at + 1);
        EXPECT_NE(r.out.substr(at, end - at).find(description), std::string::npos) << name;
    }
}

TEST(PresetsCli, JsonListHasTheShippedOnes) {
    const Result r = run_plab("presets --json");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json list = nlohmann::json::parse(r.out);
    ASSERT_TRUE(list.is_array());
    ASSERT_EQ(list.size(), kShipped.size());
    for (std::size_t i = 0; i < kShipped.size(); ++i) {
        EXPECT_EQ(list[i]["name"], kShipped[i]);
        EXPECT_EQ(list[i]["description"], load_preset(kShipped[i]).description);
        EXPECT_TRUE(fs::exists(list[i]["path"].get<std::string>())) << list[i];
        EXPECT_EQ(list[i].size(), 3u) << list[i];  // no "error" key
    }
}

TEST(PresetsCli, ShowPrintsTheResolvedPreset) {
    const Result r = run_plab("presets --show spirals-amp-fp16");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["scaler"]["init_scale"], 65536);
    EXPECT_EQ(j["scaler"]["kind"], "dynamic");
    EXPECT_EQ(j["precision"]["recipe"], "amp-fp16");
    EXPECT_EQ(j["scaler"]["hysteresis"], 2);  // resolved: keys the file leaves out are there too
    EXPECT_EQ(j.size(), 14u);
    EXPECT_EQ(r.out, run_config_to_json(load_preset("spirals-amp-fp16"), true));
}

// Every scenario's guide (Look at / Try / What happens) is in what --show prints.
TEST(PresetsCli, ShowCarriesEveryScenarioGuide) {
    for (const ScenarioEntry& e : scenario_checks()) {
        const std::string name(e.preset);
        const Result r = run_plab("presets --show " + name);
        ASSERT_EQ(r.exit_code, 0) << name << ": " << r.err;
        const std::string guide = nlohmann::json::parse(r.out).at("guide").get<std::string>();
        EXPECT_EQ(guide, load_preset(name).guide) << name;
        for (const char* part : {"Look at:", "Try:", "What happens:"})
            EXPECT_NE(guide.find(part), std::string::npos) << name << " lacks " << part;
    }
}

TEST(PresetsCli, ShowWithSettings) {
    const Result r = run_plab("presets --show spirals-amp-fp16 --set scaler.init_scale=1024 --set model.hidden=[8]");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const nlohmann::json j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["scaler"]["init_scale"], 1024);
    EXPECT_EQ(j["model"]["hidden"], nlohmann::json::array({8}));
    EXPECT_EQ(j["scaler"]["kind"], "dynamic");
}

// A copy whose scaler kind ignores a setting would train as if it were not
// there: refused as plab run refuses it, and nothing is printed to save.
TEST(PresetsCli, ShowWithASettingTheScalerKindIgnoresExitsTwo) {
    const Result r = run_plab("presets --show spirals-bf16 --set scaler.init_scale=1024");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, init_scale_ignored_by_no_scaler("1024"));
    EXPECT_EQ(run_plab("presets --show spirals-bf16 --set scaler.kind=static --set scaler.init_scale=1024").exit_code, 0);
}

TEST(PresetsCli, ShowAFileAndItsErrors) {
    const fs::path dir = scratch_dir();
    std::ofstream(dir / "good.json") << R"({"name": "good", "steps": 7, "precision": {"recipe": "amp-bf16"}})";
    std::ofstream(dir / "bad.json") << R"({"scaler": {"grwth_interval": 10}})";
    const Result good = run_plab("presets --show '" + (dir / "good.json").string() + "'");
    ASSERT_EQ(good.exit_code, 0) << good.err;
    const nlohmann::json j = nlohmann::json::parse(good.out);
    EXPECT_EQ(j["steps"], 7);
    EXPECT_EQ(j["scaler"]["kind"], "none");  // the recipe's default
    const Result bad = run_plab("presets --show '" + (dir / "bad.json").string() + "'");
    EXPECT_EQ(bad.exit_code, 2);
    EXPECT_EQ(bad.out, "");
    EXPECT_EQ(bad.err.rfind("plab: " + (dir / "bad.json").string() + ": scaler.grwth_interval: unknown key; allowed keys: ", 0), 0u)
        << bad.err;
    EXPECT_EQ(std::count(bad.err.begin(), bad.err.end(), '\n'), 1);  // one line
    fs::remove_all(dir);
}

TEST(PresetsCli, UnknownNameAndBadSettingExitTwo) {
    const Result unknown = run_plab("presets --show spirals-fp64");
    EXPECT_EQ(unknown.exit_code, 2);
    EXPECT_EQ(unknown.err.rfind("plab: unknown preset \"spirals-fp64\"; known presets: ", 0), 0u) << unknown.err;
    for (const std::string& name : kShipped) EXPECT_NE(unknown.err.find(" " + name), std::string::npos) << name;
    const Result bad_set = run_plab("presets --show spirals-fp32 --set optimizer.lr=abc");
    EXPECT_EQ(bad_set.exit_code, 2);
    EXPECT_EQ(bad_set.err, "plab: optimizer.lr: \"abc\" is not allowed; allowed a number\n");
    EXPECT_EQ(run_plab("presets --set steps=5").exit_code, 2);  // --set needs --show
}

TEST(PresetsCli, HelpTeaches) {
    const Result r = run_plab("presets --help");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const char* needle : {"PLAB_PRESET_DIR", "assets/presets", "plab presets --show spirals-amp-fp16",
                               "scaler.growth_interval", "telemetry.hist_every"})
        EXPECT_NE(r.out.find(needle), std::string::npos) << needle;
}

}  // namespace
}  // namespace plab
