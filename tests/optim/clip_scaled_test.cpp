// optimizer.clip_scaled: the classic bug of clipping the scaled gradients
// before the unscale, on a case small enough to compute by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/model/parameter.h"
#include "engine/optim/gradients.h"
#include "engine/optim/optimizer.h"
#include "optim/optim_test_util.h"

namespace plab {
namespace {

constexpr float kScale = 1024.0f;

// Two one-element FP32 parameters w = {10, 20} whose true gradients are
// {3, 4} (norm 5), held as in an AMP step: grad_sum in FP16, times S.
struct TinyCase {
    CpuBackend be;
    Parameter a = make_parameter(be, "a", {1, 1}, FormatId::fp32, true);
    Parameter b = make_parameter(be, "b", {1, 1}, FormatId::fp32, true);
    std::vector<Parameter*> params{&a, &b};

    TinyCase() {
        set(a.value, 10.0f);
        set(b.value, 20.0f);
        a.grad_sum = be.allocate({1, 1}, FormatId::fp16);
        b.grad_sum = be.allocate({1, 1}, FormatId::fp16);
        set(a.grad_sum, 3.0f * kScale);
        set(b.grad_sum, 4.0f * kScale);
    }
    void set(Tensor& t, float v) { be.upload(&v, t); }

    // One trainer-order step: scaled clip (a no-op unless clip_scaled),
    // unscale, optimizer step. Returns found_inf.
    bool step(Optimizer& opt, ScaledClip* clip = nullptr) {
        const ScaledClip c = opt.clip_before_unscale(be, params);
        if (clip) *clip = c;
        const bool found_inf = unscale_gradients(be, params, kScale);
        if (!found_inf) test::run_step(opt, be, params);
        return found_inf;
    }
};

OptimizerConfig plain_sgd(bool clip_scaled, float clip_norm = 1.0f) {
    OptimizerConfig c;
    c.kind = OptimizerKind::sgd;
    c.lr = 1.0f;
    c.momentum = 0.0f;
    c.clip_norm = clip_norm;
    c.clip_scaled = clip_scaled;
    return c;
}

// The default: unscale to {3, 4}, norm 5, clip to norm 1: {0.6, 0.8}.
TEST(ClipScaled, OffClipsTheUnscaledGradients) {
    TinyCase t;
    Optimizer opt(plain_sgd(false));
    ScaledClip clip;
    ASSERT_FALSE(t.step(opt, &clip));
    EXPECT_FALSE(clip.applied);
    EXPECT_NEAR(t.a.value.host()[0], 10.0 - 0.6, 2e-6);
    EXPECT_NEAR(t.b.value.host()[0], 20.0 - 0.8, 2e-6);
}

// The bug: the scaled norm is sqrt(3072^2 + 4096^2) = 5120, so the scaled
// gradients are clipped to {0.6, 0.8}, stored in FP16 as 0.60009765625
// (0.6 = 1.2 * 2^-1, mantissa 204.8 -> 205) and 0.7998046875 (614.4 -> 614),
// and only then divided by S = 1024: the update is 1024 times too small.
TEST(ClipScaled, OnShrinksTheUpdateByTheScale) {
    TinyCase t;
    Optimizer opt(plain_sgd(true));
    ScaledClip clip;
    ASSERT_FALSE(t.step(opt, &clip));
    EXPECT_TRUE(clip.applied);
    EXPECT_TRUE(clip.clipped);
    EXPECT_EQ(clip.scaled_norm, 5120.0f);
    EXPECT_EQ(t.a.master_grad.host()[0], static_cast<float>(0.60009765625 / 1024));
    EXPECT_EQ(t.b.master_grad.host()[0], static_cast<float>(0.7998046875 / 1024));
    EXPECT_FLOAT_EQ(t.a.value.host()[0], static_cast<float>(10.0 - 0.60009765625 / 1024));
    EXPECT_FLOAT_EQ(t.b.value.host()[0], static_cast<float>(20.0 - 0.7998046875 / 1024));
}

// Below the limit neither path clips, and with clip_norm 0 the flag does nothing.
TEST(ClipScaled, NoClipWhenUnderTheLimitOrNoLimit) {
    for (const OptimizerConfig& c : {plain_sgd(true, 6000.0f), plain_sgd(true, 0.0f)}) {
        TinyCase t;
        Optimizer opt(c);
        ScaledClip clip;
        ASSERT_FALSE(t.step(opt, &clip));
        EXPECT_FALSE(clip.clipped);
        EXPECT_EQ(clip.applied, c.clip_norm > 0.0f);
        EXPECT_FLOAT_EQ(t.a.value.host()[0], 7.0f);
        EXPECT_FLOAT_EQ(t.b.value.host()[0], 16.0f);
    }
}

// An overflowed step stays an overflowed step: Inf norm, coef 0, Inf * 0 = NaN.
TEST(ClipScaled, AnInfStillSkipsTheStep) {
    TinyCase t;
    t.set(t.a.grad_sum, std::numeric_limits<float>::infinity());
    Optimizer opt(plain_sgd(true));
    EXPECT_TRUE(t.step(opt));
    EXPECT_EQ(t.a.value.host()[0], 10.0f);
    EXPECT_EQ(t.b.value.host()[0], 20.0f);
}

}  // namespace
}  // namespace plab
