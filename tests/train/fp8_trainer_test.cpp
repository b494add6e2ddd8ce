// The fp8 recipe in the Trainer: each step's per-tensor scales come from the
// amaxes of earlier steps as the records show them (telemetry's own amax of
// the same tensors), the window slides, live edits and clones carry the
// scaling state, and a layer override takes a layer out of FP8.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "tests/train/trainer_test_util.h"

namespace plab {
namespace {

using trainer_test::preset_with;
using trainer_test::record_difference;

RunConfig fp8_config(const std::vector<std::string>& more = {}) {
    std::vector<std::string> settings = {"precision.recipe=fp8", "scaler.kind=none", "steps=50",
                                         "telemetry.hist_every=0", "twin=false"};
    settings.insert(settings.end(), more.begin(), more.end());
    return preset_with("spirals-amp-fp16", settings);
}

// The closed form, in FP64: 2^floor(log2(fmt_max / amax)).
float expected_scale(double fmt_max, double amax) { return static_cast<float>(std::exp2(std::floor(std::log2(fmt_max / amax)))); }
float e5m2_scale(float amax) { return expected_scale(57344.0, amax); }
float e4m3_scale(float amax) { return expected_scale(448.0, amax); }

std::vector<StepRecord> run_steps(Trainer& t, int n) {
    std::vector<StepRecord> out;
    for (int i = 0; i < n; ++i) out.push_back(t.step());
    return out;
}

TEST(Fp8Trainer, ScalesComeFromTheAmaxHistoryOfEarlierSteps) {
    CpuBackend backend;
    Trainer t(backend, fp8_config({"precision.fp8_history_len=2"}));
    const std::vector<StepRecord> r = run_steps(t, 5);
    const std::size_t layers = r[0].layers.size();
    ASSERT_EQ(layers, 3u);
    for (std::size_t i = 0; i < layers; ++i) {
        SCOPED_TRACE("layer " + std::to_string(i));
        ASSERT_TRUE(r[0].layers[i].fp8.has_value());
        EXPECT_EQ(r[0].layers[i].fp8->scales, Fp8Scales{});  // step 1: no history yet
        for (std::size_t s = 1; s < r.size(); ++s) {
            // History of 2: the step before and the one before that (step 1 has only one).
            auto window_max = [&](auto amax_of) {
                return s >= 2 ? std::max(amax_of(r[s - 1]), amax_of(r[s - 2])) : amax_of(r[s - 1]);
            };
            const float grad_amax = window_max([&](const StepRecord& x) { return x.layers[i].act_grad.amax; });
            EXPECT_EQ(r[s].layers[i].fp8->scales.grad, e5m2_scale(grad_amax)) << "step " << s + 1;
            if (i == 0) continue;  // layer 1's input is the batch, not in the records
            const float input_amax = window_max([&](const StepRecord& x) { return x.layers[i - 1].act.amax; });
            EXPECT_EQ(r[s].layers[i].fp8->scales.input, e4m3_scale(input_amax)) << "step " << s + 1;
        }
    }
    // Gradients of 1e-3 and below get scales far above 1: the E5M2 cast sees them shifted up.
    EXPECT_GT(r[4].layers[0].fp8->scales.grad, 1024.0f);
}

TEST(Fp8Trainer, ScaledGradientsAreTheHeldOnesTimesTheScale) {
    CpuBackend backend;
    Trainer t(backend, fp8_config());
    const std::vector<StepRecord> r = run_steps(t, 3);
    for (const LayerRecord& l : r[2].layers) {
        const TensorStats& held = l.act_grad;
        const TensorStats& scaled = l.fp8->grad_scaled;
        EXPECT_EQ(scaled.count, held.count);
        EXPECT_EQ(scaled.zeros, held.zeros);
        EXPECT_EQ(scaled.amax, held.amax * l.fp8->scales.grad);  // a power of two: exact
    }
}

TEST(Fp8Trainer, WithoutScalingEveryScaleIsOne) {
    CpuBackend backend;
    Trainer t(backend, fp8_config({"precision.fp8_scaling=none"}));
    for (const StepRecord& r : run_steps(t, 4))
        for (const LayerRecord& l : r.layers) {
            EXPECT_EQ(l.fp8->scales, Fp8Scales{});
            for (std::size_t f = 0; f < kRangeFormats.size(); ++f)
                EXPECT_EQ(l.fp8->grad_scaled.ranges[f].underflow, l.act_grad.ranges[f].underflow);
        }
}

TEST(Fp8Trainer, LiveEditsRescaleAtOnce) {
    CpuBackend backend;
    Trainer t(backend, fp8_config({"precision.fp8_scaling=none"}));
    const std::vector<StepRecord> before = run_steps(t, 3);
    // The history was kept all along: delayed scaling starts from it, with a window of the newest step.
    t.apply("precision.fp8_scaling=delayed");
    t.apply("precision.fp8_history_len=1");
    t.apply("precision.fp8_margin=2");
    const StepRecord next = t.step();
    for (std::size_t i = 0; i < next.layers.size(); ++i)
        EXPECT_EQ(next.layers[i].fp8->scales.grad, e5m2_scale(before[2].layers[i].act_grad.amax) / 4.0f) << i;
    EXPECT_EQ(t.config().precision.fp8, (Fp8Config{Fp8ScalingKind::delayed, 1, 2}));
}

TEST(Fp8Trainer, ACloneCarriesTheScalingState) {
    CpuBackend backend;
    Trainer t(backend, fp8_config());
    run_steps(t, 4);
    const auto copy = t.clone();
    for (int i = 0; i < 3; ++i) {
        const StepRecord a = t.step();
        const StepRecord b = copy->step();
        EXPECT_EQ(record_difference(a, b), "") << "step " << a.step;
        for (std::size_t l = 0; l < a.layers.size(); ++l) EXPECT_EQ(a.layers[l].fp8->scales, b.layers[l].fp8->scales);
    }
}

TEST(Fp8Trainer, AnOverrideKeepsALayerOutOfFp8) {
    CpuBackend backend;
    Trainer t(backend, fp8_config({"precision.layer_overrides.fc3=fp32"}));
    const StepRecord r = t.step();
    EXPECT_TRUE(r.layers[0].fp8.has_value());
    EXPECT_TRUE(r.layers[1].fp8.has_value());
    EXPECT_FALSE(r.layers[2].fp8.has_value());
}

TEST(Fp8Trainer, TheRecipeDefaultsToNoLossScaler) {
    EXPECT_EQ(recipe_default_scaler(Recipe::fp8), ScalerKind::none);
    EXPECT_TRUE(recipe_uses_fp8(Recipe::fp8));
    EXPECT_FALSE(recipe_uses_fp8(Recipe::amp_fp16));
    const RunConfig c = parse_run_config(R"({"precision": {"recipe": "fp8"}})", "test");
    EXPECT_EQ(c.scaler.kind, ScalerKind::none);
}

}  // namespace
}  // namespace plab
