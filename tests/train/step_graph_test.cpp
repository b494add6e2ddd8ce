// Recorded steps (TrainerOptions::step_graphs): a run whose steps replay a
// recorded graph must give the records of the same run stepped op by op, bit
// for bit, through every kind of step (histograms, evaluations, scale growth
// and backoff, accumulation, live edits, forks), and the graphs must really
// be used: every step replays one except the first (whose forward allocates
// the models' buffers, so the backend refuses to record it).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/train/trainer_test_util.h"

namespace plab {
namespace {

using trainer_test::histograms_difference;
using trainer_test::preset_with;
using trainer_test::record_difference;

TrainerOptions graphs(bool on) {
    TrainerOptions o;
    o.step_graphs = on;
    return o;
}

struct Outcome {
    int evaluations = 0;
    int growths = 0;
    int skips = 0;
    int histogram_steps = 0;
};

// Steps both trainers `steps` times, applying `edits` to both before step
// edit_at; every record and histogram must match.
Outcome expect_same_records(Trainer& replayed, Trainer& stepped, int steps, int edit_at = 0,
                            const std::vector<std::string>& edits = {}) {
    Outcome o;
    for (int s = 1; s <= steps; ++s) {
        if (s == edit_at)
            for (const std::string& e : edits) {
                replayed.apply(e);
                stepped.apply(e);
            }
        const StepRecord a = replayed.step();
        const StepRecord b = stepped.step();
        EXPECT_EQ(record_difference(a, b), "") << "step " << s;
        EXPECT_EQ(histograms_difference(replayed.histograms(), stepped.histograms()), "") << "step " << s;
        if (::testing::Test::HasFailure()) return o;
        o.evaluations += a.acc.has_value() || a.test_loss.has_value();
        o.growths += a.growth;
        o.skips += a.skipped;
        o.histogram_steps += replayed.has_histograms();
    }
    return o;
}

TEST(StepGraphs, TheDefaultPresetReplaysItsStepsWithTheSameRecords) {
    CpuBackend backend;
    RunConfig config = preset_with("spirals-amp-fp16", {"steps=300"});
    Trainer replayed(backend, config, graphs(true)), stepped(backend, config, graphs(false));
    const Outcome o = expect_same_records(replayed, stepped, config.steps);
    EXPECT_EQ(o.evaluations, 3);
    EXPECT_GT(o.histogram_steps, 0);
    const StepGraphCounts& c = replayed.step_graph_counts();
    // Op by op: step 1 only, whose recording the backend refused (its
    // forward allocates the models' buffers). The first evaluation allocates
    // the test set's buffers beside the batch's, so step 101 records again;
    // after the second the step replays at once. The scale stays 2^16 over
    // these steps, so two graphs (with and without histograms), twice.
    EXPECT_EQ(c.replayed, config.steps - 1);
    EXPECT_EQ(c.refused, 1);
    EXPECT_EQ(c.recorded, 4);
    EXPECT_EQ(stepped.step_graph_counts().replayed, 0);
}

// A scale that keeps moving (growths and backoffs every few steps) is a new
// graph key each time: the cache holds a few and drops the oldest.
TEST(StepGraphs, ASawtoothScaleRecordsPerScaleAndKeepsTheSameRecords) {
    CpuBackend backend;
    const RunConfig config = preset_with("scaler-sawtooth", {"steps=300"});
    Trainer replayed(backend, config, graphs(true)), stepped(backend, config, graphs(false));
    const Outcome o = expect_same_records(replayed, stepped, config.steps);
    EXPECT_GE(o.growths, 3);
    EXPECT_GE(o.skips, 3);
    EXPECT_GT(replayed.step_graph_counts().recorded, 3);
    EXPECT_GT(replayed.step_graph_counts().replayed, config.steps / 2);
}

struct Variant {
    const char* preset;
    std::vector<std::string> settings;
};

class StepGraphVariant : public ::testing::TestWithParam<Variant> {};

TEST_P(StepGraphVariant, ReplaysWithTheSameRecords) {
    CpuBackend backend;
    RunConfig config = preset_with(GetParam().preset, GetParam().settings);
    config.steps = 120;
    Trainer replayed(backend, config, graphs(true)), stepped(backend, config, graphs(false));
    expect_same_records(replayed, stepped, config.steps);
    EXPECT_GT(replayed.step_graph_counts().replayed, 100);
}

INSTANTIATE_TEST_SUITE_P(
    Recipes, StepGraphVariant,
    ::testing::Values(Variant{"spirals-fp32", {}}, Variant{"spirals-bf16", {}},
                      Variant{"pure-fp16-lost-updates", {}}, Variant{"grad-accumulation", {}},
                      Variant{"attention-softmax-overflow", {}},
                      Variant{"spirals-amp-fp16", {"optimizer.kind=sgd", "optimizer.momentum=0.9"}},
                      Variant{"spirals-amp-fp16", {"optimizer.clip_norm=0.5", "optimizer.accumulation=3"}},
                      Variant{"spirals-amp-fp16", {"scaler.kind=hysteresis", "scaler.hysteresis=2"}},
                      Variant{"spirals-amp-fp16", {"data.kind=sine", "telemetry.hist_every=10"}},
                      Variant{"spirals-amp-fp16", {"twin=false", "telemetry.enabled=false"}}),
    [](const ::testing::TestParamInfo<Variant>& p) {
        std::string name = std::to_string(p.index) + "_" + p.param.preset;
        for (char& c : name)
            if (c == '-') c = '_';
        return name;
    });

// Live edits of the numbers a step reads from the backend (the optimizer's
// and the scaler's parameters) reach the very next replay, with no new
// recording: the step right after shortening growth_interval below the
// clean-step count grows the scale, from the graph recorded before the edit.
TEST(StepGraphs, LiveEditsOfSettingsReachTheNextReplayWithoutARecording) {
    CpuBackend backend;
    for (const std::vector<std::string>& optimizer :
         {std::vector<std::string>{"optimizer.clip_norm=1"},
          std::vector<std::string>{"optimizer.kind=sgd", "optimizer.momentum=0.9", "optimizer.clip_norm=1"}}) {
        SCOPED_TRACE(optimizer[0]);
        std::vector<std::string> settings = optimizer;
        settings.push_back("steps=60");
        const RunConfig config = preset_with("spirals-amp-fp16", settings);
        Trainer replayed(backend, config, graphs(true)), stepped(backend, config, graphs(false));
        expect_same_records(replayed, stepped, 30);
        const StepGraphCounts before = replayed.step_graph_counts();
        const Outcome o = expect_same_records(
            replayed, stepped, 1, 1,
            {"optimizer.lr=0.02", "optimizer.weight_decay=0.05", "optimizer.clip_norm=0.3", "optimizer.beta1=0.8",
             "optimizer.beta2=0.99", "optimizer.eps=1e-6", "optimizer.momentum=0.5", "scaler.growth_factor=4",
             "scaler.backoff_factor=0.25", "scaler.growth_interval=3"});
        EXPECT_EQ(o.growths, 1);
        EXPECT_EQ(replayed.step_graph_counts().recorded, before.recorded);
        EXPECT_EQ(replayed.step_graph_counts().replayed, before.replayed + 1);
        expect_same_records(replayed, stepped, 29);  // the new scale records once; growths every 3 steps
    }
}

// Edits that change the step's ops (no clip, the twin off) or its loss scale
// record again, and the records stay those of op by op.
TEST(StepGraphs, LiveEditsOfTheStepsShapeRecordAgain) {
    CpuBackend backend;
    const RunConfig config = preset_with("spirals-amp-fp16", {"steps=80", "optimizer.clip_norm=1"});
    Trainer replayed(backend, config, graphs(true)), stepped(backend, config, graphs(false));
    std::int64_t recorded = 0;
    for (const char* edit : {"optimizer.clip_norm=0", "scaler.scale=4096", "twin=false"}) {
        SCOPED_TRACE(edit);
        expect_same_records(replayed, stepped, 10);
        recorded = replayed.step_graph_counts().recorded;
        expect_same_records(replayed, stepped, 1, 1, {edit});
        EXPECT_EQ(replayed.step_graph_counts().recorded, recorded + 1);
    }
    expect_same_records(replayed, stepped, 20);
}

// A fork copies the weights and optimizer state into a new trainer with its
// own recorder; both then step on.
TEST(StepGraphs, AForkReplaysLikeItsParent) {
    CpuBackend backend;
    const RunConfig config = preset_with("spirals-amp-fp16", {"steps=100"});
    Trainer parent(backend, config, graphs(true)), stepped(backend, config, graphs(false));
    expect_same_records(parent, stepped, 30);
    std::unique_ptr<plab::Run> fork = parent.clone();
    auto& forked = dynamic_cast<Trainer&>(*fork);
    expect_same_records(forked, stepped, 30);
    EXPECT_GT(forked.step_graph_counts().replayed, 25);
}

// Steps that read values back in the middle (the NaN tracer's per-op
// checks, FP8's amaxes, clip_scaled's norm) run op by op, with the same records.
TEST(StepGraphs, StepsThatReadBackRunOpByOp) {
    CpuBackend backend;
    for (const Variant& v : {Variant{"fp8-delayed-scaling", {}}, Variant{"clip-before-unscale", {}}}) {
        SCOPED_TRACE(v.preset);
        RunConfig config = preset_with(v.preset, v.settings);
        config.steps = 40;
        Trainer replayed(backend, config, graphs(true)), stepped(backend, config, graphs(false));
        expect_same_records(replayed, stepped, config.steps);
        EXPECT_EQ(replayed.step_graph_counts().replayed, 0);
    }
    const RunConfig config = preset_with("spirals-amp-fp16", {"steps=20"});
    TrainerOptions traced = graphs(true);
    traced.trace_nan = true;
    Trainer replayed(backend, config, traced);
    for (int s = 0; s < 20; ++s) (void)replayed.step();
    EXPECT_EQ(replayed.step_graph_counts().replayed, 0);
}

}  // namespace
}  // namespace plab
