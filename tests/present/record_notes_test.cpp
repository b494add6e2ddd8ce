// The words both workbenches use for a recorded run.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>

#include "ui/present/record_notes.h"

namespace plab {
namespace {

SessionSnapshot recorded(const std::string& source, bool with_fork) {
    SessionSnapshot s;
    auto origin = std::make_shared<RecordOrigin>();
    origin->file = "/data/runs/gpt.jsonl";
    origin->source = source;
    origin->backend = source.empty() ? "CPU (exact emulation)" : "PyTorch 2.4.0 (cuda)";
    if (with_fork) origin->replayed = "scaler.init_scale=1024, scaler.growth_interval=500";
    s.record = origin;
    s.step = 300;
    RunLog log;
    StepRecord r;
    r.step = 300;
    r.loss = 0.012345f;
    log.append(r);
    s.main.log = log.view();
    if (with_fork) s.fork = RunView{};
    return s;
}

TEST(RecordNotes, TheStatusLineNamesTheFileTheWriterAndTheWhatIf) {
    EXPECT_EQ(record_status_text(recorded("plab_probe 0.1.0, torch 2.4.0", true)),
              "gpt.jsonl · plab_probe 0.1.0, torch 2.4.0 on PyTorch 2.4.0 (cuda) · 300 steps recorded · loss 0.01235 · "
              "what-if: scaler.init_scale=1024, scaler.growth_interval=500");
    EXPECT_EQ(record_status_text(recorded("", false)),
              "gpt.jsonl · CPU (exact emulation) · 300 steps recorded · loss 0.01235");
}

TEST(RecordNotes, AnEditOfASettingAlreadyTriedReplacesIt) {
    std::vector<std::string> edits = what_if_with({}, "scaler.init_scale=1024");
    edits = what_if_with(edits, "scaler.growth_interval=500");
    edits = what_if_with(edits, "scaler.init_scale=4096");
    EXPECT_EQ(edits, (std::vector<std::string>{"scaler.growth_interval=500", "scaler.init_scale=4096"}));
    // The live view's x2 key sets the current scale; on a record it is where the replay starts.
    edits = what_if_with(edits, "scaler.scale=8192");
    EXPECT_EQ(edits, (std::vector<std::string>{"scaler.growth_interval=500", "scaler.init_scale=8192"}));
}

TEST(RecordNotes, EveryGapSaysWhoseRecordItIs) {
    const SessionSnapshot probe = recorded("plab_probe 0.1.0, torch 2.4.0", false);
    for (RecordGap gap : {RecordGap::decision, RecordGap::twin, RecordGap::speed, RecordGap::samples})
        EXPECT_NE(record_gap_text(gap, *probe.record).find("a PyTorch record (plab_probe 0.1.0, torch 2.4.0)"),
                  std::string::npos);
    EXPECT_NE(record_gap_text(RecordGap::remedies, *probe.record).find("plab replay /data/runs/gpt.jsonl --search"),
              std::string::npos);
    EXPECT_NE(record_gap_text(RecordGap::decision, *recorded("", false).record).find("the lab's own record"),
              std::string::npos);
}

}  // namespace
}  // namespace plab
