// The trainer driving the tiny GPT (model.kind gpt) on token data: the
// tiny-gpt presets as shipped, shrunk to a few fast steps.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/common/error.h"
#include "engine/train/preset_io.h"
#include "engine/train/trainer.h"
#include "trainer_test_util.h"

namespace plab {
namespace {

using trainer_test::preset_with;
using trainer_test::record_difference;

// The preset's shape, small: one block, 16 wide, context 8, 4 windows a step.
RunConfig small_gpt(std::string_view preset, std::vector<std::string> more = {}) {
    std::vector<std::string> settings = {"model.layers=1", "model.width=16", "model.heads=2", "model.context=8",
                                         "batch_size=4",   "eval_every=5",   "steps=40",      "telemetry.hist_every=5"};
    settings.insert(settings.end(), more.begin(), more.end());
    return preset_with(preset, settings);
}

std::string error_of(const RunConfig& config) {
    try {
        validate(config);
    } catch (const Error& e) {
        return e.what();
    }
    return "(valid)";
}

// In FP32 the mixed run computes exactly what its twin does: every loss
// bit for bit, every layer's weight distance 0; and the model learns.
TEST(GptTraining, Fp32RunIsItsTwinBitForBitAndLearns) {
    CpuBackend backend;
    Trainer trainer(backend, small_gpt("tiny-gpt-fp32"));
    EXPECT_EQ(trainer.layer_names().size(), 7u);  // one block's 6 and the head
    EXPECT_EQ(trainer.layer_names().back(), "head");
    float first = 0, last = 0;
    for (int s = 1; s <= 40; ++s) {
        const StepRecord r = trainer.step();
        ASSERT_EQ(trainer_test::bits_of(r.loss), trainer_test::bits_of(r.loss_ref)) << "step " << s;
        for (const LayerRecord& l : r.layers) ASSERT_EQ(l.weight_rel_dist, 0.0f) << "step " << s;
        if (s == 1) first = r.loss;
        last = r.loss;
        if (s % 5 == 0) {
            ASSERT_TRUE(r.acc && r.test_loss) << "step " << s;
            EXPECT_GE(*r.acc, 0.0f);
            EXPECT_LE(*r.acc, 1.0f);
        }
    }
    EXPECT_NEAR(first, std::log(62.0f), 0.1f);  // the character vocabulary, uniform at the start
    EXPECT_LT(last, first - 0.5f);
}

// AMP FP16 runs its matmuls in FP16: it drifts from the twin, slightly, and
// the 2^16 loss scale sees no overflow on this model.
TEST(GptTraining, AmpFp16TracksItsTwinWithoutOverflow) {
    CpuBackend backend;
    Trainer trainer(backend, small_gpt("tiny-gpt-amp-fp16"));
    StepRecord r;
    for (int s = 0; s < 20; ++s) {
        r = trainer.step();
        ASSERT_FALSE(r.found_inf) << "step " << r.step;
    }
    EXPECT_NE(trainer_test::bits_of(r.loss), trainer_test::bits_of(r.loss_ref));
    EXPECT_NEAR(r.loss, r.loss_ref, 0.02f * r.loss_ref);
    EXPECT_GT(r.layers.front().weight_rel_dist, 0.0f);
    EXPECT_LT(r.layers.front().weight_rel_dist, 0.01f);
}

// A fork continues exactly as the run it was copied from: the same windows
// from the same sampler position, the same weights and optimizer state.
TEST(GptTraining, AForkContinuesTheRunBitForBit) {
    CpuBackend backend;
    Trainer trainer(backend, small_gpt("tiny-gpt-amp-bf16"));
    for (int s = 0; s < 7; ++s) trainer.step();
    const std::unique_ptr<plab::Run> fork = trainer.clone();
    for (int s = 0; s < 5; ++s) {
        const StepRecord a = trainer.step(), b = fork->step();
        ASSERT_EQ(record_difference(a, b), "") << "step " << a.step;
    }
}

// Garbled steps train on other windows than the text's, those steps only
// (the records before them are the plain run's bit for bit), and a fork made
// inside the stretch draws what the original draws.
TEST(GptTraining, GarbledStepsChangeTheirOwnBatchesAndForksFollow) {
    CpuBackend backend;
    Trainer plain(backend, small_gpt("tiny-gpt-fp32"));
    Trainer garbled(backend, small_gpt("tiny-gpt-fp32", {"data.garbled_from=3", "data.garbled_steps=3"}));
    for (int s = 1; s <= 2; ++s) ASSERT_EQ(record_difference(plain.step(), garbled.step()), "") << "step " << s;
    const StepRecord a = plain.step(), b = garbled.step();
    EXPECT_NE(trainer_test::bits_of(a.loss), trainer_test::bits_of(b.loss));
    const std::unique_ptr<plab::Run> fork = garbled.clone();
    for (int s = 4; s <= 6; ++s) ASSERT_EQ(record_difference(garbled.step(), fork->step()), "") << "step " << s;
}

// Addition: each window is one example; accuracy is the exact-match share of
// the answers, a multiple of 1 / (test windows).
TEST(GptTraining, AdditionReportsExactMatchAccuracy) {
    CpuBackend backend;
    Trainer trainer(backend, small_gpt("tiny-gpt-fp32", {"data.kind=addition", "data.digits=2", "data.samples=400",
                                                          "model.context=9"}));
    StepRecord r;
    for (int s = 0; s < 5; ++s) r = trainer.step();
    ASSERT_TRUE(r.acc);
    EXPECT_NEAR(*r.acc * 40.0f, std::round(*r.acc * 40.0f), 1e-4f);  // 40 test examples
}

TEST(GptTraining, MismatchedModelAndDataAreNamed) {
    const RunConfig good = small_gpt("tiny-gpt-fp32");
    RunConfig gpt_on_points = good;
    gpt_on_points.data.kind = DatasetKind::spirals;
    EXPECT_EQ(error_of(gpt_on_points).rfind("data.kind: spirals", 0), 0u) << error_of(gpt_on_points);
    RunConfig mlp_on_text = good;
    mlp_on_text.model.kind = ModelKind::mlp;
    EXPECT_EQ(error_of(mlp_on_text).rfind("model.kind: mlp", 0), 0u) << error_of(mlp_on_text);
    RunConfig addition = good;  // context 8, but 3 digits need 12
    addition.data.kind = DatasetKind::addition;
    EXPECT_NE(error_of(addition).find("model.context: 8"), std::string::npos) << error_of(addition);
    EXPECT_NE(error_of(addition).find("12"), std::string::npos) << error_of(addition);
    RunConfig heads = good;
    heads.model.gpt.heads = 3;
    EXPECT_EQ(error_of(heads).rfind("model.heads: 3", 0), 0u) << error_of(heads);
    EXPECT_THROW(apply_settings(heads, {"model.heads=3"}), Error);
}

}  // namespace
}  // namespace plab
