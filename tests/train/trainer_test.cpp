// Trainer behaviour across steps: gradient accumulation, the FP32 twin's
// exact agreement under the fp32 recipe, and lost updates of FP16 and BF16
// weights without master copies (docs/DESIGN.md, "Mixed precision semantics").
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <ostream>
#include <string>
#include <vector>

#include "engine/numeric/scalar_cast.h"
#include "engine/train/telemetry.h"
#include "tests/train/trainer_test_util.h"

namespace plab {
namespace {

using trainer_test::bits_of;
using trainer_test::host_values;
using trainer_test::param_tensors;
using trainer_test::preset_with;
using trainer_test::same_bits;
using trainer_test::targets_of;
using trainer_test::values_of;

const Tensor& grad_of(const Parameter& p) { return p.grad; }
const Tensor& master_grad_of(const Parameter& p) { return p.master_grad; }

// ---------------------------------------------------------------------------
// Accumulation: N micro-batches per optimizer step.

RunConfig accumulation_config(int accumulation, std::vector<std::string> extra) {
    std::vector<std::string> settings = {"data.samples=200",     "batch_size=8",         "model.hidden=[8]",
                                         "optimizer.kind=sgd",   "optimizer.momentum=0", "optimizer.lr=0.1",
                                         "twin=false",           "telemetry.hist_every=0",
                                         "optimizer.accumulation=" + std::to_string(accumulation)};
    settings.insert(settings.end(), extra.begin(), extra.end());
    return preset_with("spirals-amp-fp16", settings);
}

// One scaler update per optimizer step, not per micro-batch: the tracker
// and the scale follow PyTorch's rule (replayed here) step by step.
TEST(TrainerAccumulation, UpdatesTheScalerOncePerOptimizerStep) {
    CpuBackend backend;
    Trainer trainer(backend, accumulation_config(4, {"scaler.kind=dynamic", "scaler.init_scale=256",
                                                     "scaler.growth_interval=3"}));
    float scale = 256.0f;
    int tracker = 0;
    for (int s = 1; s <= 7; ++s) {
        const StepRecord r = trainer.step();
        ASSERT_FALSE(r.found_inf) << "step " << s;
        EXPECT_EQ(r.scale, scale) << "step " << s;
        if (++tracker == 3) {
            scale *= 2.0f;
            tracker = 0;
        }
        EXPECT_EQ(r.growth_tracker, tracker) << "step " << s;
        EXPECT_EQ(r.scale_after, scale) << "step " << s;
        EXPECT_EQ(r.growth, s % 3 == 0) << "step " << s;
    }
    EXPECT_EQ(scale, 1024.0f);
}

// Largest |value| the last micro-batch's backward stored (FP16): the
// gradient w.r.t. the logits and the weight and bias gradients of the one
// Linear layer.
float last_backward_amax(CpuBackend& backend, const Trainer& t) {
    const Mlp& m = t.model();
    float amax = 0;
    for (const Tensor* x : {&m.activation_grad(0), &m.linears()[0].weight.grad, &m.linears()[0].bias.grad})
        for (float v : host_values(backend, *x)) amax = std::max(amax, std::fabs(v));
    return amax;
}

bool all_finite(CpuBackend& backend, const Tensor& t) {
    const auto v = host_values(backend, t);
    return std::all_of(v.begin(), v.end(), [](float x) { return std::isfinite(x); });
}

// One finite check per optimizer step: with a scale at which the first
// micro-batch overflows FP16 and the second (the last) does not, the whole
// step is skipped. The scale is chosen from the two micro-batches' own
// gradient maxima at S = 1: micro-batch k of an accumulation-N run at step 1
// is batch k of the sampler, at the initial weights, so an accumulation-1
// run shows batch 1 and an accumulation-2 run's last micro-batch batch 2.
TEST(TrainerAccumulation, AnInfInAnyMicroBatchSkipsTheWholeStep) {
    CpuBackend backend;
    for (int seed = 1; seed <= 40; ++seed) {
        const std::vector<std::string> base = {"model.hidden=[]", "scaler.kind=static", "seed=" + std::to_string(seed)};
        auto at = [&](int accumulation, float scale) {
            std::vector<std::string> s = base;
            s.push_back("scaler.init_scale=" + std::to_string(scale));
            return accumulation_config(accumulation, s);
        };
        Trainer one(backend, at(1, 1.0f)), two(backend, at(2, 1.0f));
        ASSERT_FALSE(one.step().found_inf);
        ASSERT_FALSE(two.step().found_inf);
        const float m1 = last_backward_amax(backend, one), m2 = last_backward_amax(backend, two);
        if (m1 < 1.3f * m2) continue;  // need batch 1 clearly larger than batch 2
        // Geometric middle: batch 1 * S > 65504 * 1.14, batch 2 * S < 65504 / 1.14.
        const float scale = 65504.0f / std::sqrt(m1 * m2);
        SCOPED_TRACE("seed " + std::to_string(seed) + ", S " + std::to_string(scale));

        Trainer alone(backend, at(1, scale));
        EXPECT_TRUE(alone.step().found_inf) << "premise: batch 1 alone overflows at S";

        Trainer run(backend, at(2, scale));
        const auto before = targets_of(backend, run.model());
        const StepRecord r = run.step();
        const Mlp& m = run.model();
        // The last micro-batch (batch 2) stored only finite values ...
        EXPECT_TRUE(all_finite(backend, m.activation_grad(0)));
        EXPECT_TRUE(all_finite(backend, m.linears()[0].weight.grad));
        EXPECT_TRUE(all_finite(backend, m.linears()[0].bias.grad));
        // ... yet the first one's Inf skips the step.
        EXPECT_TRUE(r.found_inf);
        EXPECT_TRUE(r.skipped);
        EXPECT_EQ(r.first_nonfinite_layer, 0);
        EXPECT_TRUE(same_bits(targets_of(backend, run.model()), before));
        return;
    }
    FAIL() << "no seed in 1..40 gives micro-batches whose gradient maxima differ by 1.3x";
}

// Under fp32 (scale 1) the accumulated gradient is the FP32 sum, in
// micro-batch order, of the micro-batches' own gradients, each taken from a
// separate run whose last micro-batch is that batch at the initial weights.
TEST(TrainerAccumulation, Fp32GradientIsTheSumOfTheMicroBatchGradients) {
    CpuBackend backend;
    const std::vector<std::string> fp32 = {"precision.recipe=fp32", "scaler.kind=none"};
    Trainer t1(backend, accumulation_config(1, fp32));
    Trainer t2(backend, accumulation_config(2, fp32));
    Trainer t3(backend, accumulation_config(3, fp32));
    const auto w0 = targets_of(backend, t3.model());
    for (Trainer* t : {&t1, &t2, &t3}) ASSERT_FALSE(t->step().skipped);
    const auto g1 = param_tensors(backend, t1.model(), grad_of);
    const auto g2 = param_tensors(backend, t2.model(), grad_of);
    const auto g3 = param_tensors(backend, t3.model(), grad_of);
    const auto sum2 = param_tensors(backend, t2.model(), master_grad_of);
    const auto sum3 = param_tensors(backend, t3.model(), master_grad_of);
    const auto w3 = targets_of(backend, t3.model());
    ASSERT_FALSE(same_bits(g1, g2));  // three different batches
    ASSERT_FALSE(same_bits(g2, g3));
    const float lr = 0.1f;
    for (std::size_t p = 0; p < g1.size(); ++p)
        for (std::size_t i = 0; i < g1[p].size(); ++i) {
            EXPECT_EQ(bits_of(sum2[p][i]), bits_of(g1[p][i] + g2[p][i])) << "param " << p << " element " << i;
            const float sum = (g1[p][i] + g2[p][i]) + g3[p][i];
            EXPECT_EQ(bits_of(sum3[p][i]), bits_of(sum)) << "param " << p << " element " << i;
            EXPECT_EQ(bits_of(w3[p][i]), bits_of(w0[p][i] - lr * sum)) << "param " << p << " element " << i;
        }
}

// ---------------------------------------------------------------------------
// The twin under the fp32 recipe runs the very same computation: zero drift.

TEST(TrainerTwin, Fp32RecipeMatchesItsTwinExactly) {
    CpuBackend backend;
    Trainer trainer(backend, preset_with("spirals-fp32", {"steps=50", "eval_every=10"}));
    ASSERT_NE(trainer.twin(), nullptr);
    int evaluations = 0;
    for (int s = 1; s <= 50; ++s) {
        const StepRecord r = trainer.step();
        SCOPED_TRACE("step " + std::to_string(s));
        EXPECT_EQ(bits_of(r.loss), bits_of(r.loss_ref));
        ASSERT_EQ(r.layers.size(), 3u);
        for (const LayerRecord& l : r.layers) {
            EXPECT_EQ(l.weight_rel_dist, 0.0f);
            EXPECT_EQ(l.grad_rel_dist, 0.0f);
            EXPECT_EQ(l.grad_cos, 1.0f);
        }
        ASSERT_EQ(r.acc.has_value(), s % 10 == 0);
        ASSERT_EQ(r.acc_ref.has_value(), s % 10 == 0);
        if (r.acc) {
            ++evaluations;
            EXPECT_EQ(*r.acc, *r.acc_ref);
            ASSERT_TRUE(r.test_loss && r.test_loss_ref);
            EXPECT_EQ(bits_of(*r.test_loss), bits_of(*r.test_loss_ref));
        }
    }
    EXPECT_EQ(evaluations, 5);
    EXPECT_TRUE(same_bits(targets_of(backend, trainer.model()), targets_of(backend, *trainer.twin())));
}

// The control: the same run in amp-fp16 does drift, so the zeros above are
// measured, not constants.
TEST(TrainerTwin, AmpFp16DriftsFromItsTwin) {
    CpuBackend backend;
    Trainer trainer(backend, preset_with("spirals-amp-fp16", {"steps=10", "eval_every=10"}));
    StepRecord r;
    for (int s = 0; s < 10; ++s) r = trainer.step();
    ASSERT_EQ(r.layers.size(), 3u);
    for (const LayerRecord& l : r.layers) {
        EXPECT_GT(l.weight_rel_dist, 0.0f);
        EXPECT_GT(l.grad_rel_dist, 0.0f);
        EXPECT_LT(l.grad_cos, 1.0f);
        EXPECT_GT(l.grad_cos, 0.9f);
    }
    EXPECT_NE(bits_of(r.loss), bits_of(r.loss_ref));
}

// ---------------------------------------------------------------------------
// Lost updates: 16-bit weights without FP32 master copies drop updates below
// half a ULP of the weight (FP16's or BF16's); with master weights nothing is
// lost, and the stored values are the masters' rounding.

struct PureRecipe {
    const char* name;  // the recipe's name
    FormatId weights;  // the format its weights are stored in
};
void PrintTo(const PureRecipe& r, std::ostream* os) { *os << r.name; }

class TrainerLostUpdates : public testing::TestWithParam<PureRecipe> {
protected:
    RunConfig config(bool master_weights) const {
        return preset_with("spirals-amp-fp16",
                           {std::string("precision.recipe=") + GetParam().name,
                            std::string("precision.master_weights=") + (master_weights ? "true" : "false"),
                            "scaler.kind=static", "scaler.init_scale=128", "optimizer.kind=sgd",
                            "optimizer.momentum=0", "optimizer.lr=0.0001", "data.samples=256", "batch_size=32",
                            "model.hidden=[16]", "twin=false", "telemetry.hist_every=0"});
    }
};

// lost_update_frac by its definition, for one step of plain SGD on 16-bit
// weights w0 with FP32 gradients g: of the elements whose FP32 update
// w0 - lr * g differs from w0, the fraction whose rounding to `format` equals w0.
double reference_lost_fraction(FormatId format, const std::vector<std::vector<float>>& w0,
                               const std::vector<std::vector<float>>& g, float lr,
                               std::vector<std::vector<float>>* stored) {
    long moved = 0, lost = 0;
    stored->clear();
    for (std::size_t p = 0; p < w0.size(); ++p) {
        stored->emplace_back();
        for (std::size_t i = 0; i < w0[p].size(); ++i) {
            const float fresh = w0[p][i] - lr * g[p][i];
            const float kept = round_to(format, fresh);
            stored->back().push_back(kept);
            moved += fresh != w0[p][i];
            lost += fresh != w0[p][i] && kept == w0[p][i];
        }
    }
    return moved ? static_cast<double>(lost) / static_cast<double>(moved) : 0.0;
}

TEST_P(TrainerLostUpdates, WeightsWithoutMasterCopiesLoseSmallUpdates) {
    CpuBackend backend;
    Trainer trainer(backend, config(false));
    ASSERT_TRUE(trainer.model().linears()[0].weight.master.empty());
    ASSERT_EQ(trainer.model().linears()[0].weight.value.dtype(), GetParam().weights);
    int steps_with_losses = 0;
    for (int s = 1; s <= 20; ++s) {
        const auto w0 = values_of(backend, trainer.model());
        const StepRecord r = trainer.step();
        ASSERT_FALSE(r.skipped) << "step " << s;
        const auto g = param_tensors(backend, trainer.model(), master_grad_of);
        std::vector<std::vector<float>> stored;
        const double expected = reference_lost_fraction(GetParam().weights, w0, g, 0.0001f, &stored);
        EXPECT_EQ(r.lost_update_frac, static_cast<float>(expected)) << "step " << s;
        EXPECT_TRUE(same_bits(values_of(backend, trainer.model()), stored)) << "step " << s;
        steps_with_losses += r.lost_update_frac > 0.0f;
    }
    EXPECT_GT(steps_with_losses, 10);
}

TEST_P(TrainerLostUpdates, MasterWeightsLoseNothing) {
    CpuBackend backend;
    Trainer trainer(backend, config(true));
    ASSERT_FALSE(trainer.model().linears()[0].weight.master.empty());
    const auto start = targets_of(backend, trainer.model());
    for (int s = 1; s <= 20; ++s) {
        const StepRecord r = trainer.step();
        ASSERT_FALSE(r.skipped) << "step " << s;
        EXPECT_EQ(r.lost_update_frac, 0.0f) << "step " << s;
    }
    // The FP32 masters did move (the updates are kept there), and the 16-bit
    // values are their rounding.
    const auto masters = targets_of(backend, trainer.model());
    EXPECT_FALSE(same_bits(masters, start));
    const auto values = values_of(backend, trainer.model());
    for (std::size_t p = 0; p < masters.size(); ++p)
        for (std::size_t i = 0; i < masters[p].size(); ++i)
            EXPECT_EQ(bits_of(values[p][i]), bits_of(round_to(GetParam().weights, masters[p][i])));
}

INSTANTIATE_TEST_SUITE_P(PureRecipes, TrainerLostUpdates,
                         testing::Values(PureRecipe{"fp16-pure", FormatId::fp16},
                                         PureRecipe{"bf16-pure", FormatId::bf16}),
                         [](const auto& p) { return std::string(format_name(p.param.weights)); });

}  // namespace
}  // namespace plab

namespace {

// A dynamic scaler that backs off on every step takes the loss scale down to
// 0; the unscaled views then have no meaning and stay empty, while the views
// as held are still measured (the step must not fail).
TEST(TrainerTelemetry, ScaleOfZeroLeavesTheUnscaledViewsEmpty) {
    plab::CpuBackend backend;
    plab::RunConfig c = plab::load_preset("spirals-amp-fp16");
    c.twin = false;
    plab::Trainer trainer(backend, c);
    (void)trainer.step();
    std::vector<plab::LayerRecord> layers;
    plab::queue_pass_stats(backend, trainer.model(), 0.0f, layers);
    std::vector<plab::LayerHistograms> hist;
    plab::queue_histograms(backend, trainer.model(), 0.0f, hist);
    backend.wait_for_queued();
    ASSERT_EQ(layers.size(), 3u);
    for (std::size_t i = 0; i < layers.size(); ++i) {
        EXPECT_GT(layers[i].grad.count, 0) << i;
        EXPECT_GT(layers[i].act_grad.count, 0) << i;
        EXPECT_EQ(layers[i].grad_unscaled.count, 0) << i;
        EXPECT_EQ(layers[i].act_grad_unscaled.count, 0) << i;
        std::uint64_t held = 0, divided = 0;
        for (std::uint32_t b : hist[i].grad.bins) held += b;
        for (std::uint32_t b : hist[i].grad_unscaled.bins) divided += b;
        EXPECT_GT(held + static_cast<std::uint64_t>(hist[i].grad.zeros), 0u) << i;
        EXPECT_EQ(divided + static_cast<std::uint64_t>(hist[i].grad_unscaled.zeros), 0u) << i;
    }
}

}  // namespace
