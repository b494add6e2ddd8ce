// The AMP step of the Trainer against references written in the test
// (docs/DESIGN.md, "Mixed precision semantics" and "Loss scaler"): a hand-computed
// FP16 step of a tiny MLP, skipping on Inf, and clipping after the unscale.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/numeric/scalar_cast.h"
#include "tests/train/trainer_test_util.h"

namespace plab {
namespace {

using trainer_test::bits_of;
using trainer_test::host_values;
using trainer_test::preset_with;
using trainer_test::same_bits;
using trainer_test::targets_of;
using trainer_test::ulp_distance;
using trainer_test::values_of;

// A 2 -> 3 -> 2 classifier on the 4 training rows of a 5-sample spiral
// set, full batch, plain SGD: small enough to compute by hand.
RunConfig tiny_amp_config(std::vector<std::string> extra, std::string activation = "relu") {
    std::vector<std::string> settings = {
        "data.samples=5",    "data.classes=2",       "batch_size=4",        "model.hidden=[3]",
        "precision.recipe=amp-fp16", "optimizer.kind=sgd", "optimizer.momentum=0", "optimizer.lr=0.05",
        "twin=false",        "telemetry.hist_every=0", "steps=100",         "eval_every=100",
        "model.activation=" + activation};
    settings.insert(settings.end(), extra.begin(), extra.end());
    return preset_with("spirals-amp-fp16", settings);
}

// ---------------------------------------------------------------------------
// Reference: one AMP-FP16 step written out element by element, in FP64 with
// an explicit rounding to FP16 wherever the policy stores a tensor in the
// compute format. The FP32 accumulations of the engine are exact sums here,
// rounded to FP32 and then to FP16 (the same double rounding the engine does;
// the FP32 order only matters at an FP16 tie, which these values avoid).

struct RefLayer {
    int in = 0, out = 0;
    std::vector<float> w;  // in x out, row-major (Linear's layout)
    std::vector<float> b;  // out
};

float to_fp16(double x) { return round_to(FormatId::fp16, static_cast<float>(x)); }

std::vector<RefLayer> reference_net(CpuBackend& backend, const Mlp& model) {
    std::vector<RefLayer> net;
    for (const Linear& l : model.linears())
        net.push_back({l.in_features(), l.out_features(), host_values(backend, l.weight.target()),
                       host_values(backend, l.bias.target())});
    return net;
}

struct RefGrads {
    double loss = 0;
    std::vector<RefLayer> grads;  // FP16 values, multiplied by the loss scale
};

// The hidden activation and its slope, in FP64 (the engine's FP32 tanhf
// differs in the last FP32 bits, which the FP16 rounding that follows absorbs).
double activate(bool tanh, double x) { return tanh ? std::tanh(x) : (x > 0 ? x : 0.0); }
double slope(bool tanh, double x) { return tanh ? 1.0 - std::tanh(x) * std::tanh(x) : (x > 0 ? 1.0 : 0.0); }

RefGrads reference_grads(const std::vector<RefLayer>& net, const std::vector<float>& x, const std::vector<int>& labels,
                         float scale, bool tanh) {
    const int rows = static_cast<int>(labels.size());
    const int layers = static_cast<int>(net.size());
    // acts[l]: layer l's input as its GEMM sees it (FP16); pre[l]: its output.
    std::vector<std::vector<float>> acts(static_cast<std::size_t>(layers)), pre(acts.size()), w16(acts.size());
    for (float v : x) acts[0].push_back(to_fp16(v));
    for (int l = 0; l < layers; ++l) {
        const RefLayer& L = net[static_cast<std::size_t>(l)];
        auto& w = w16[static_cast<std::size_t>(l)];
        for (float v : L.w) w.push_back(to_fp16(v));
        auto& z = pre[static_cast<std::size_t>(l)];
        const auto& a = acts[static_cast<std::size_t>(l)];
        z.assign(static_cast<std::size_t>(rows * L.out), 0.0f);
        for (int r = 0; r < rows; ++r)
            for (int o = 0; o < L.out; ++o) {
                double sum = L.b[static_cast<std::size_t>(o)];  // FP32 bias, added before the one rounding
                for (int i = 0; i < L.in; ++i)
                    sum += static_cast<double>(a[static_cast<std::size_t>(r * L.in + i)]) *
                           w[static_cast<std::size_t>(i * L.out + o)];
                z[static_cast<std::size_t>(r * L.out + o)] = to_fp16(sum);
            }
        if (l + 1 < layers)
            for (float v : z) acts[static_cast<std::size_t>(l + 1)].push_back(to_fp16(activate(tanh, v)));
    }
    // Softmax cross-entropy (FP32 list: no FP16 rounding of probabilities),
    // and its gradient times S / rows, stored in FP16.
    RefGrads out;
    const int classes = net.back().out;
    std::vector<float> dz(static_cast<std::size_t>(rows * classes));
    for (int r = 0; r < rows; ++r) {
        const float* z = pre.back().data() + r * classes;
        const double top = *std::max_element(z, z + classes);
        double sum = 0;
        for (int c = 0; c < classes; ++c) sum += std::exp(z[c] - top);
        const int label = labels[static_cast<std::size_t>(r)];
        out.loss += std::log(sum) - (z[label] - top);
        for (int c = 0; c < classes; ++c) {
            const double p = std::exp(z[c] - top) / sum;
            dz[static_cast<std::size_t>(r * classes + c)] =
                to_fp16((p - (c == label ? 1.0 : 0.0)) * static_cast<double>(scale) / rows);
        }
    }
    out.loss /= rows;
    // Backward, layer by layer: weight grad x^T dz, bias grad column sums,
    // input grad dz W^T (FP16), through the activation of the layer below
    // (its gradient stored in FP16 again).
    out.grads.resize(net.size());
    for (int l = layers - 1; l >= 0; --l) {
        const RefLayer& L = net[static_cast<std::size_t>(l)];
        RefLayer& g = out.grads[static_cast<std::size_t>(l)];
        const auto& a = acts[static_cast<std::size_t>(l)];
        g = {L.in, L.out, std::vector<float>(L.w.size()), std::vector<float>(L.b.size())};
        for (int i = 0; i < L.in; ++i)
            for (int o = 0; o < L.out; ++o) {
                double sum = 0;
                for (int r = 0; r < rows; ++r)
                    sum += static_cast<double>(a[static_cast<std::size_t>(r * L.in + i)]) *
                           dz[static_cast<std::size_t>(r * L.out + o)];
                g.w[static_cast<std::size_t>(i * L.out + o)] = to_fp16(sum);
            }
        for (int o = 0; o < L.out; ++o) {
            double sum = 0;
            for (int r = 0; r < rows; ++r) sum += dz[static_cast<std::size_t>(r * L.out + o)];
            g.b[static_cast<std::size_t>(o)] = to_fp16(sum);
        }
        if (l == 0) break;
        const auto& below = pre[static_cast<std::size_t>(l - 1)];
        std::vector<float> da(static_cast<std::size_t>(rows * L.in));
        for (int r = 0; r < rows; ++r)
            for (int i = 0; i < L.in; ++i) {
                double sum = 0;
                for (int o = 0; o < L.out; ++o)
                    sum += static_cast<double>(dz[static_cast<std::size_t>(r * L.out + o)]) *
                           w16[static_cast<std::size_t>(l)][static_cast<std::size_t>(i * L.out + o)];
                const auto k = static_cast<std::size_t>(r * L.in + i);
                da[k] = to_fp16(static_cast<double>(to_fp16(sum)) * slope(tanh, below[k]));
            }
        dz = std::move(da);
    }
    return out;
}

// Unscale (FP32 multiply by 1/S) and the plain SGD update, in FP32.
void reference_sgd(std::vector<float>& w, const std::vector<float>& grad16, float scale, float lr) {
    const float inv = static_cast<float>(1.0 / scale);
    for (std::size_t i = 0; i < w.size(); ++i) w[i] = w[i] - lr * (grad16[i] * inv);
}

void expect_bits_equal(const std::vector<float>& engine, const std::vector<float>& ref, const std::string& what) {
    ASSERT_EQ(engine.size(), ref.size()) << what;
    for (std::size_t i = 0; i < ref.size(); ++i)
        EXPECT_EQ(bits_of(engine[i]), bits_of(ref[i])) << what << "[" << i << "]: " << engine[i] << " vs " << ref[i];
}

void expect_within_ulp(const std::vector<float>& engine, const std::vector<float>& ref, const std::string& what) {
    ASSERT_EQ(engine.size(), ref.size()) << what;
    for (std::size_t i = 0; i < ref.size(); ++i)
        EXPECT_LE(ulp_distance(engine[i], ref[i]), 1) << what << "[" << i << "]: " << engine[i] << " vs " << ref[i];
}

// Three steps, for each hidden activation: ReLU (exact in FP16) and tanh
// (whose stored output and input gradient each round to FP16).
class TrainerAmpStep : public ::testing::TestWithParam<const char*> {};

TEST_P(TrainerAmpStep, ThreeFp16StepsMatchAHandComputedReference) {
    CpuBackend backend;
    const bool tanh = std::string(GetParam()) == "tanh";
    // Dynamic scaler from 2^10, growth after 2 clean steps: S = 1024, 1024, 2048.
    Trainer trainer(backend, tiny_amp_config({"scaler.kind=dynamic", "scaler.init_scale=1024",
                                              "scaler.growth_interval=2"},
                                             GetParam()));
    const Dataset& data = trainer.data();
    ASSERT_EQ(data.train.rows, 4);  // the batch is the whole training split, in some order
    std::vector<RefLayer> net = reference_net(backend, trainer.model());
    ASSERT_EQ(net.size(), 2u);
    const float scales[] = {1024.0f, 1024.0f, 2048.0f};
    const int trackers[] = {1, 0, 1};
    const float lr = 0.05f;
    for (int s = 0; s < 3; ++s) {
        SCOPED_TRACE("step " + std::to_string(s + 1));
        const RefGrads ref = reference_grads(net, data.train.inputs, data.train.labels, scales[s], tanh);
        const StepRecord record = trainer.step();
        EXPECT_EQ(record.scale, scales[s]);
        EXPECT_EQ(record.growth_tracker, trackers[s]);
        EXPECT_EQ(record.growth, s == 1);
        EXPECT_FALSE(record.found_inf);
        EXPECT_FALSE(record.skipped);
        EXPECT_NEAR(record.loss, ref.loss, 2e-6 * ref.loss);
        for (std::size_t l = 0; l < net.size(); ++l) {
            const Linear& linear = trainer.model().linears()[l];
            const std::string name = linear.name();
            // What the hardware holds: the FP16 gradient of loss * S.
            expect_bits_equal(host_values(backend, linear.weight.grad), ref.grads[l].w, name + ".weight.grad");
            expect_bits_equal(host_values(backend, linear.bias.grad), ref.grads[l].b, name + ".bias.grad");
            // The master gradient: the FP16 gradient times 1/S in FP32.
            std::vector<float> unscaled_w = ref.grads[l].w, unscaled_b = ref.grads[l].b;
            for (float& g : unscaled_w) g *= static_cast<float>(1.0 / scales[s]);
            for (float& g : unscaled_b) g *= static_cast<float>(1.0 / scales[s]);
            expect_bits_equal(host_values(backend, linear.weight.master_grad), unscaled_w, name + ".weight.master_grad");
            expect_bits_equal(host_values(backend, linear.bias.master_grad), unscaled_b, name + ".bias.master_grad");
            // The FP32 master weights after w - lr * g.
            reference_sgd(net[l].w, ref.grads[l].w, scales[s], lr);
            reference_sgd(net[l].b, ref.grads[l].b, scales[s], lr);
            expect_within_ulp(host_values(backend, linear.weight.target()), net[l].w, name + ".weight");
            expect_within_ulp(host_values(backend, linear.bias.target()), net[l].b, name + ".bias");
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Activations, TrainerAmpStep, ::testing::Values("relu", "tanh"));

// ---------------------------------------------------------------------------
// Skipping on Inf: a scale of 2^40 makes every scaled loss gradient overflow
// FP16 (|p - onehot| * 2^40 / 4 > 65504).

constexpr float kHugeScale = 1099511627776.0f;  // 2^40

TEST(TrainerSkip, OverflowSkipsTheStepBacksOffAndResetsTheTracker) {
    CpuBackend backend;
    Trainer trainer(backend, tiny_amp_config({"scaler.kind=dynamic", "scaler.init_scale=1024",
                                              "scaler.growth_interval=1000", "scaler.backoff_factor=0.25"}));
    for (int i = 0; i < 3; ++i) ASSERT_FALSE(trainer.step().found_inf);
    ASSERT_EQ(trainer.scaler().growth_tracker(), 3);
    trainer.apply("scaler.scale=1099511627776");
    const auto targets = targets_of(backend, trainer.model());
    const auto values = values_of(backend, trainer.model());

    const StepRecord r = trainer.step();
    EXPECT_TRUE(r.found_inf);
    EXPECT_TRUE(r.skipped);
    EXPECT_TRUE(r.backoff);
    EXPECT_FALSE(r.growth);
    EXPECT_EQ(r.scale, kHugeScale);
    EXPECT_EQ(r.scale_after, kHugeScale * 0.25f);
    EXPECT_EQ(trainer.scaler().scale(), kHugeScale * 0.25f);
    EXPECT_EQ(r.growth_tracker, 0);
    EXPECT_EQ(trainer.scaler().growth_tracker(), 0);
    // Backward order starts at the last layer's bias: fc2 (index 1) holds the first Inf.
    EXPECT_EQ(r.first_nonfinite_layer, 1);
    EXPECT_FALSE(r.clipped);
    EXPECT_EQ(r.lost_update_frac, 0.0f);
    EXPECT_TRUE(same_bits(targets_of(backend, trainer.model()), targets)) << "a skipped step changed the weights";
    EXPECT_TRUE(same_bits(values_of(backend, trainer.model()), values));

    // Back at a finite scale the next step applies and counts from 0.
    trainer.apply("scaler.scale=1024");
    const StepRecord next = trainer.step();
    EXPECT_FALSE(next.found_inf);
    EXPECT_FALSE(next.skipped);
    EXPECT_EQ(next.first_nonfinite_layer, -1);
    EXPECT_EQ(next.growth_tracker, 1);
    EXPECT_FALSE(same_bits(targets_of(backend, trainer.model()), targets));
}

// AdamW's first applied step moves each weight by lr * g / (|g| + eps)
// (bias-corrected moments m^ = g, v^ = g^2). After a skipped first step the
// next applied one must still be that first step: a skipped step that
// counted (steps_taken 2 gives about 0.74 lr) or fed its Inf into the
// moments (NaN) fails here.
TEST(TrainerSkip, SkippedStepLeavesTheOptimizerStateUntouched) {
    CpuBackend backend;
    Trainer trainer(backend, tiny_amp_config({"optimizer.kind=adamw", "optimizer.lr=0.01", "optimizer.eps=1e-8",
                                              "optimizer.weight_decay=0", "scaler.kind=dynamic",
                                              "scaler.init_scale=1099511627776"}));
    const auto before = targets_of(backend, trainer.model());
    const StepRecord skipped = trainer.step();
    ASSERT_TRUE(skipped.skipped);
    EXPECT_EQ(skipped.scale_after, kHugeScale * 0.5f);
    ASSERT_TRUE(same_bits(targets_of(backend, trainer.model()), before));

    trainer.apply("scaler.scale=1024");
    const StepRecord applied = trainer.step();
    ASSERT_FALSE(applied.skipped);
    const auto after = targets_of(backend, trainer.model());
    const auto grads = trainer_test::param_tensors(backend, trainer.model(),
                                                   [](const Parameter& p) -> const Tensor& { return p.master_grad; });
    int moved = 0;
    for (std::size_t p = 0; p < after.size(); ++p)
        for (std::size_t i = 0; i < after[p].size(); ++i) {
            const double g = grads[p][i];
            const double expected = -0.01 * g / (std::fabs(g) + 1e-8);
            const double delta = static_cast<double>(after[p][i]) - before[p][i];
            EXPECT_NEAR(delta, expected, 1e-6) << "param " << p << " element " << i << " g " << g;
            moved += std::fabs(expected) > 1e-3;
        }
    EXPECT_GT(moved, 10);
}

// ---------------------------------------------------------------------------
// Clipping after the unscale: the clip sees the true gradient norm, so the
// loss scale cannot change the update.

RunConfig clip_config(float scale, float clip_norm) {
    return preset_with("spirals-amp-fp16",
                       {"data.samples=100", "batch_size=16", "model.hidden=[8]", "optimizer.kind=sgd",
                        "optimizer.momentum=0", "optimizer.lr=0.1", "optimizer.clip_norm=" + std::to_string(clip_norm),
                        "scaler.kind=static", "scaler.init_scale=" + std::to_string(scale), "twin=false",
                        "telemetry.hist_every=0"});
}

// sqrt(sum (g / S)^2) in FP64 over every parameter's FP16 micro-batch gradient.
double unscaled_norm(CpuBackend& backend, const Mlp& model, float scale) {
    double sum = 0;
    for (const auto& g : trainer_test::param_tensors(backend, model, [](const Parameter& p) -> const Tensor& {
             return p.grad;
         }))
        for (float v : g) sum += (static_cast<double>(v) / scale) * (static_cast<double>(v) / scale);
    return std::sqrt(sum);
}

TEST(TrainerClip, ClipsTheUnscaledGradientsWhateverTheScale) {
    CpuBackend backend;
    const float clip = 0.01f, lr = 0.1f;
    Trainer small(backend, clip_config(1.0f, clip));
    Trainer large(backend, clip_config(1024.0f, clip));
    for (int s = 0; s < 3; ++s) {
        SCOPED_TRACE("step " + std::to_string(s + 1));
        for (Trainer* t : {&small, &large}) {
            const float scale = t->scaler().scale();
            const auto before = targets_of(backend, t->model());
            const StepRecord r = t->step();
            ASSERT_FALSE(r.skipped);
            const double norm = unscaled_norm(backend, t->model(), scale);
            EXPECT_NEAR(r.grad_norm, norm, 1e-5 * norm) << "scale " << scale;
            ASSERT_GT(norm, 10 * clip);  // the clip bites
            EXPECT_TRUE(r.clipped);
            // master_grad = (grad * 1/S) * coef, coef = clip / (norm + 1e-6),
            // and w = w - lr * master_grad, all in FP32.
            const float coef = clip / (r.grad_norm + 1e-6f);
            const auto grads = trainer_test::param_tensors(backend, t->model(),
                                                           [](const Parameter& p) -> const Tensor& { return p.grad; });
            const auto master = trainer_test::param_tensors(
                backend, t->model(), [](const Parameter& p) -> const Tensor& { return p.master_grad; });
            const auto after = targets_of(backend, t->model());
            double clipped_sq = 0;
            for (std::size_t p = 0; p < grads.size(); ++p)
                for (std::size_t i = 0; i < grads[p].size(); ++i) {
                    const float g = (grads[p][i] * static_cast<float>(1.0 / scale)) * coef;
                    EXPECT_EQ(bits_of(master[p][i]), bits_of(g)) << "param " << p << " element " << i;
                    EXPECT_EQ(bits_of(after[p][i]), bits_of(before[p][i] - lr * g));
                    clipped_sq += static_cast<double>(master[p][i]) * master[p][i];
                }
            EXPECT_NEAR(std::sqrt(clipped_sq), clip, 1e-5 * clip);
        }
        // The same true gradient, the same clipped update (up to FP16
        // rounding of the few gradients that are subnormal at S = 1).
        const auto a = targets_of(backend, small.model());
        const auto b = targets_of(backend, large.model());
        for (std::size_t p = 0; p < a.size(); ++p)
            for (std::size_t i = 0; i < a[p].size(); ++i)
                EXPECT_NEAR(a[p][i], b[p][i], 1e-6f * std::max(1.0f, std::fabs(b[p][i])));
    }
}

TEST(TrainerClip, LeavesGradientsBelowTheLimitAlone) {
    CpuBackend backend;
    Trainer trainer(backend, clip_config(1024.0f, 1000.0f));
    const StepRecord r = trainer.step();
    EXPECT_FALSE(r.clipped);
    const double norm = unscaled_norm(backend, trainer.model(), 1024.0f);
    EXPECT_NEAR(r.grad_norm, norm, 1e-5 * norm);
    const auto grads = trainer_test::param_tensors(backend, trainer.model(),
                                                   [](const Parameter& p) -> const Tensor& { return p.grad; });
    const auto master = trainer_test::param_tensors(backend, trainer.model(),
                                                    [](const Parameter& p) -> const Tensor& { return p.master_grad; });
    for (std::size_t p = 0; p < grads.size(); ++p)
        for (std::size_t i = 0; i < grads[p].size(); ++i)
            EXPECT_EQ(bits_of(master[p][i]), bits_of(grads[p][i] * (1.0f / 1024.0f)));
}

}  // namespace
}  // namespace plab
