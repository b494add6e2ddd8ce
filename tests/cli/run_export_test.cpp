// Exporting a session's run replays it: every record, bit for bit what the
// session trained, live edits included, although the session kept only the
// recent records.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/common/error.h"
#include "engine/train/preset_io.h"
#include "engine/train/session.h"
#include "engine/train/trainer_factory.h"
#include "ui/records/run_export.h"
#include "temp_path.h"

namespace {

std::vector<nlohmann::json> read_lines(const std::string& path) {
    std::ifstream in(path);
    std::vector<nlohmann::json> lines;
    for (std::string line; std::getline(in, line);) lines.push_back(nlohmann::json::parse(line));
    return lines;
}

TEST(RunExport, ReplaysEveryRecordWithTheEditsBitForBit) {
    plab::RunConfig config = plab::load_preset("scaler-sawtooth");
    config.steps = 40;
    plab::SessionOptions options;
    options.log.recent = 8;  // the session forgets most records; the export must not
    plab::Session session(config, plab::trainer_factory(std::make_shared<plab::CpuBackend>()), options);
    session.step(15);
    session.set("scaler.growth_interval=7");
    session.set("optimizer.lr=0.003");
    session.step(25);
    session.wait_until_idle();
    const auto snap = session.snapshot();
    ASSERT_EQ(snap->step, 40);

    const std::string path = plab::testing_support::temp_path("plab-export-test", ".jsonl").string();
    std::vector<std::int64_t> progress;
    const plab::StepRecord last = plab::export_run(
        {config, &snap->main.log.edits, 40, plab::RecordFormat::jsonl, path}, [&](std::int64_t done) {
            progress.push_back(done);
            return true;
        });
    EXPECT_EQ(progress.size(), 40u);
    EXPECT_EQ(progress.back(), 40);
    const plab::StepRecord* latest = snap->main.log.latest();
    ASSERT_NE(latest, nullptr);
    EXPECT_EQ(last.step, 40);
    EXPECT_EQ(last.loss, latest->loss);
    EXPECT_EQ(last.scale_after, latest->scale_after);

    const auto lines = read_lines(path);
    EXPECT_FALSE(std::filesystem::exists(path + ".part"));
    ASSERT_FALSE(lines.empty());
    EXPECT_EQ(lines[0]["type"], "run");
    std::vector<nlohmann::json> steps, edits;
    for (const auto& l : lines) {
        if (l["type"] == "step") steps.push_back(l);
        if (l["type"] == "edit") edits.push_back(l);
    }
    ASSERT_EQ(steps.size(), 40u);
    ASSERT_EQ(edits.size(), 2u);
    EXPECT_EQ(edits[0]["step"], 15);
    EXPECT_EQ(edits[0]["assignment"], "scaler.growth_interval=7");
    EXPECT_EQ(edits[1]["assignment"], "optimizer.lr=0.003");
    // The records the session still holds (the last 8) equal the exported ones exactly.
    for (const auto& held : snap->main.log.recent) {
        const auto& line = steps[static_cast<std::size_t>(held->step - 1)];
        EXPECT_EQ(line["step"], held->step);
        EXPECT_EQ(line["loss"].get<float>(), held->loss) << "step " << held->step;
        EXPECT_EQ(line["scale"].get<float>(), held->scale) << "step " << held->step;
        EXPECT_EQ(line["growth_tracker"], held->growth_tracker) << "step " << held->step;
    }
    // The edit changed the run: a growth on the 7-step schedule shows up after step 15
    // (the preset's own interval would not grow before step 50).
    bool grew_after_edit = false;
    for (const auto& s : steps)
        if (s["step"].get<int>() > 15 && s["growth"].get<bool>()) grew_after_edit = true;
    EXPECT_TRUE(grew_after_edit);
    std::filesystem::remove(path);
}

TEST(RunExport, CancelledExportLeavesNoFile) {
    plab::RunConfig config = plab::load_preset("spirals-amp-fp16");
    const std::string path = plab::testing_support::temp_path("plab-export-cancel", ".csv").string();
    std::filesystem::remove(path);
    EXPECT_THROW(plab::export_run({config, nullptr, 50, plab::RecordFormat::csv, path},
                                  [](std::int64_t done) { return done < 10; }),
                 plab::Error);
    EXPECT_FALSE(std::filesystem::exists(path));
    EXPECT_FALSE(std::filesystem::exists(path + ".part"));
}

TEST(RunExport, UnwritablePathNamesIt) {
    plab::RunConfig config = plab::load_preset("spirals-amp-fp16");
    try {
        plab::export_run({config, nullptr, 5, plab::RecordFormat::jsonl, "/nonexistent-dir/run.jsonl"}, nullptr);
        FAIL() << "no error";
    } catch (const plab::Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  "export: '/nonexistent-dir/run.jsonl' is in a folder that does not exist ('/nonexistent-dir')");
    }
}

}  // namespace
