// The Trainer as a Run (engine/train/run.h): determinism, exact clones, and
// live edits that either apply at the step boundary or change nothing.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "tests/train/trainer_test_util.h"

namespace plab {
namespace {

using trainer_test::error_message;
using trainer_test::histograms_difference;
using trainer_test::preset_with;
using trainer_test::record_difference;

// Small but complete: two hidden layers, twin on, histograms every 10
// steps, evaluations every 10, and a dynamic scaler that grows every 20.
RunConfig run_config(std::vector<std::string> extra = {}) {
    std::vector<std::string> settings = {"data.samples=512",        "batch_size=32",   "model.hidden=[16,16]",
                                         "steps=100",               "eval_every=10",   "telemetry.hist_every=10",
                                         "scaler.growth_interval=20", "scaler.kind=dynamic"};
    settings.insert(settings.end(), extra.begin(), extra.end());
    return preset_with("spirals-amp-fp16", settings);
}

// Steps both runs `steps` times and expects identical records (every field,
// bitwise) and identical histograms where there are any.
void expect_same_steps(Trainer& a, Run& b, int steps) {
    const auto* b_trainer = dynamic_cast<const Trainer*>(&b);
    ASSERT_NE(b_trainer, nullptr);
    for (int s = 0; s < steps; ++s) {
        const StepRecord ra = a.step();
        const StepRecord rb = b.step();
        ASSERT_EQ(record_difference(ra, rb), "") << "step " << ra.step;
        ASSERT_EQ(histograms_difference(a.histograms(), b_trainer->histograms()), "") << "step " << ra.step;
    }
}

TEST(TrainerDeterminism, OneConfigGivesIdenticalRecords) {
    CpuBackend backend;
    const RunConfig config = run_config();
    Trainer a(backend, config), b(backend, config);
    int histogram_steps = 0, evaluations = 0, growths = 0, skips = 0;
    for (int s = 1; s <= 100; ++s) {
        const StepRecord ra = a.step();
        const StepRecord rb = b.step();
        ASSERT_EQ(record_difference(ra, rb), "") << "step " << s;
        ASSERT_EQ(histograms_difference(a.histograms(), b.histograms()), "") << "step " << s;
        histogram_steps += a.has_histograms();
        evaluations += ra.acc.has_value();
        growths += ra.growth;
        skips += ra.skipped;
        ASSERT_EQ(ra.layers.size(), 3u);
    }
    // The comparison covered every kind of step: histograms, evaluations,
    // scale growth and overflow skips (the scale reaches 2^19 and backs off).
    EXPECT_EQ(histogram_steps, 10);
    EXPECT_EQ(evaluations, 10);
    EXPECT_GT(growths, 0);
    EXPECT_GT(skips, 0);
}

// The helper itself must see a difference: another seed changes the data,
// the init and the batches.
TEST(TrainerDeterminism, AnotherSeedGivesOtherRecords) {
    CpuBackend backend;
    Trainer a(backend, run_config()), b(backend, run_config({"seed=2"}));
    const StepRecord ra = a.step();
    const StepRecord rb = b.step();
    EXPECT_NE(record_difference(ra, rb), "");
    EXPECT_NE(ra.loss, rb.loss);
}

TEST(TrainerClone, CloneContinuesExactlyAsTheOriginal) {
    CpuBackend backend;
    Trainer original(backend, run_config({"optimizer.kind=adamw", "optimizer.clip_norm=1"}));
    for (int s = 0; s < 7; ++s) original.step();
    const std::unique_ptr<plab::Run> copy = original.clone();
    EXPECT_EQ(copy->steps_done(), 7);
    EXPECT_EQ(copy->config(), original.config());
    expect_same_steps(original, *copy, 24);  // over a growth (step 20) and histogram and eval steps
}

TEST(TrainerClone, CloneIsIndependentOfTheOriginal) {
    CpuBackend backend;
    Trainer original(backend, run_config());
    for (int s = 0; s < 3; ++s) original.step();
    const std::unique_ptr<plab::Run> copy = original.clone();
    const std::unique_ptr<plab::Run> witness = original.clone();
    // Stepping and editing the copy leaves the original where it was.
    copy->apply("scaler.scale=4096");
    for (int s = 0; s < 5; ++s) copy->step();
    EXPECT_EQ(original.steps_done(), 3);
    expect_same_steps(original, *witness, 5);
}

TEST(TrainerApply, LiveScaleIsUsedByTheNextStep) {
    CpuBackend backend;
    Trainer trainer(backend, run_config());
    trainer.step();
    const std::unique_ptr<plab::Run> untouched = trainer.clone();
    const float scale = trainer.scaler().scale();
    ASSERT_NE(scale, 4096.0f);
    trainer.apply("scaler.scale=4096");
    EXPECT_EQ(trainer.scaler().scale(), 4096.0f);
    const StepRecord r = trainer.step();
    EXPECT_EQ(r.scale, 4096.0f);
    EXPECT_EQ(untouched->step().scale, scale);
}

// An init_scale typed into a live run restarts the scale at it; a clone
// taken before the edit keeps its own scale.
TEST(TrainerApply, AnInitScaleEditRestartsTheLiveScale) {
    CpuBackend backend;
    Trainer trainer(backend, run_config());
    trainer.step();
    const std::unique_ptr<plab::Run> untouched = trainer.clone();
    const float scale = trainer.scaler().scale();
    ASSERT_NE(scale, 1024.0f);
    trainer.apply("scaler.init_scale=1024");
    EXPECT_EQ(trainer.config().scaler.init_scale, 1024.0f);
    EXPECT_EQ(trainer.scaler().scale(), 1024.0f);
    EXPECT_EQ(trainer.step().scale, 1024.0f);
    EXPECT_EQ(untouched->step().scale, scale);
    const float now = trainer.scaler().scale();
    trainer.apply("scaler.growth_interval=7");  // other scaler fields leave the scale alone
    EXPECT_EQ(trainer.scaler().scale(), now);
}

TEST(TrainerApply, LiveConfigEditChangesConfigAndRecord) {
    CpuBackend backend;
    Trainer trainer(backend, run_config());
    trainer.step();
    trainer.apply("optimizer.lr=0.001");
    EXPECT_EQ(trainer.config().optimizer.lr, 0.001f);
    EXPECT_EQ(trainer.step().lr, 0.001f);
}

// A rejected edit throws a plab::Error naming the field and leaves the run
// exactly as it was: the same config, and the same records afterwards as a
// clone taken before the attempt.
TEST(TrainerApply, RejectedEditsThrowAndChangeNothing) {
    CpuBackend backend;
    Trainer trainer(backend, run_config());
    for (int s = 0; s < 3; ++s) trainer.step();
    const std::unique_ptr<plab::Run> before = trainer.clone();
    const RunConfig config = trainer.config();
    const float scale = trainer.scaler().scale();

    struct Case {
        const char* assignment;
        std::vector<const char*> expected;  // substrings of the message
    };
    const Case cases[] = {
        {"model.hidden=[8]", {"model.hidden: [8] cannot be set while a run is live", "changes model"}},
        {"seed=7", {"seed: 7 cannot be set", "changes seed"}},          // defines the data
        {"batch_size=16", {"batch_size: 16 cannot be set", "changes batch_size"}},  // defines the batches
        {"precision.recipe=fp16-pure", {"precision.recipe: fp16-pure cannot be set", "weight format"}},
        {"scaler.growth_factor=0.5", {"scaler.growth_factor", "0.5"}},  // out of range
        {"optimizer.lr=-1", {"optimizer.lr", "-1"}},
        {"scaler.bogus=1", {"scaler.bogus"}},               // unknown key
        {"scaler.scale=-1", {"scaler.scale"}},              // the live scale: finite and > 0
        {"scaler.scale=abc", {"scaler.scale", "abc"}},
    };
    for (const Case& c : cases) {
        const std::string message = error_message([&] { trainer.apply(c.assignment); });
        for (const char* part : c.expected)
            EXPECT_NE(message.find(part), std::string::npos) << c.assignment << " gave: " << message;
        EXPECT_EQ(trainer.config(), config) << c.assignment;
        EXPECT_EQ(trainer.scaler().scale(), scale) << c.assignment;
        EXPECT_EQ(trainer.steps_done(), 3) << c.assignment;
    }
    expect_same_steps(trainer, *before, 10);
}

}  // namespace
}  // namespace plab
