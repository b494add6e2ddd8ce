// The Optimizer over Parameters: norm, clipping, SGD / AdamW against the
// PyTorch-order references, master weights, lost updates, live edits.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/common/error.h"
#include "engine/numeric/scalar_cast.h"
#include "engine/optim/gradients.h"
#include "engine/optim/optimizer.h"
#include "optim/optim_test_util.h"

namespace plab {
namespace {

using test::bits;
using test::make;
using test::values_of;

// An FP32 parameter with weights `w` and an FP32 master_grad to be set per step.
Parameter fp32_param(CpuBackend& be, const std::vector<float>& w) {
    Parameter p;
    p.value = make(be, FormatId::fp32, w);
    p.master_grad = be.allocate(p.value.shape(), FormatId::fp32);
    return p;
}

void set_grad(CpuBackend& be, Parameter& p, const std::vector<float>& g) { be.upload(g.data(), p.master_grad); }

std::vector<float> grad_for(int param, int step, std::size_t n) {
    std::vector<float> g(n);
    for (std::size_t i = 0; i < n; ++i)
        g[i] = std::sin(0.7f * static_cast<float>(i + 1) + 1.3f * static_cast<float>(step) + static_cast<float>(param)) *
                (0.2f + 0.05f * static_cast<float>(step));
    return g;
}

OptimizerConfig sgd(float lr, float momentum, float weight_decay) {
    OptimizerConfig c;
    c.kind = OptimizerKind::sgd;
    c.lr = lr;
    c.momentum = momentum;
    c.weight_decay = weight_decay;
    return c;
}

OptimizerConfig adamw(float lr, float weight_decay) {
    OptimizerConfig c;
    c.kind = OptimizerKind::adamw;
    c.lr = lr;
    c.weight_decay = weight_decay;
    return c;
}

void expect_bitwise(const Tensor& t, const std::vector<float>& want, const std::string& what) {
    ASSERT_EQ(t.size(), want.size()) << what;
    for (std::size_t i = 0; i < want.size(); ++i)
        ASSERT_EQ(bits(t.host()[i]), bits(want[i])) << what << " element " << i;
}

TEST(Optimizer, ConstructionAndReconfigureValidate) {
    OptimizerConfig bad = sgd(0.1f, 0.9f, 0.0f);
    bad.lr = 0.0f;
    EXPECT_THROW(Optimizer{bad}, Error);
    Optimizer opt(sgd(0.1f, 0.9f, 0.0f));
    bad.lr = 0.2f;
    bad.beta2 = 1.0f;
    try {
        opt.reconfigure(bad);
        FAIL() << "beta2 = 1 accepted";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()), "optimizer.beta2: 1 is out of range; allowed in [0, 1)");
    }
    EXPECT_EQ(opt.config().lr, 0.1f);  // nothing changed
    EXPECT_EQ(opt.steps_taken(), 0);
}

TEST(Optimizer, SgdStepsFollowPyTorchAcrossParametersAndALiveLrEdit) {
    CpuBackend be;
    Parameter a = fp32_param(be, {0.5f, -1.0f, 2.0f, 0.125f});
    Parameter b = fp32_param(be, std::vector<float>(300, 0.75f));
    Parameter* params[] = {&a, &b};
    Optimizer opt(sgd(0.1f, 0.9f, 0.01f));
    test::RefSgd ref_a{0.1f, 0.9f, 0.01f, {}}, ref_b{0.1f, 0.9f, 0.01f, {}};
    std::vector<float> wa = values_of(a.value), wb = values_of(b.value);
    for (int step = 1; step <= 6; ++step) {
        if (step == 4) {  // live edit: momentum buffers are kept
            opt.reconfigure(sgd(0.05f, 0.9f, 0.01f));
            ref_a.lr = ref_b.lr = 0.05f;
        }
        const std::vector<float> ga = grad_for(0, step, a.value.size()), gb = grad_for(1, step, b.value.size());
        set_grad(be, a, ga);
        set_grad(be, b, gb);
        const OptimizerStepResult r = test::run_step(opt, be, params);
        test::ref_sgd_step(ref_a, wa, ga);
        test::ref_sgd_step(ref_b, wb, gb);
        expect_bitwise(a.value, wa, "a step " + std::to_string(step));
        expect_bitwise(b.value, wb, "b step " + std::to_string(step));
        double sq = 0;
        for (float x : ga) sq += double(x) * x;
        for (float x : gb) sq += double(x) * x;
        EXPECT_NEAR(r.grad_norm, std::sqrt(sq), 1e-5 * std::sqrt(sq));
        EXPECT_FALSE(r.clipped);
        EXPECT_EQ(r.nonzero_updates, 304);
        EXPECT_EQ(r.lost_updates, 0);
        EXPECT_EQ(opt.steps_taken(), step);
    }
}

TEST(Optimizer, AdamWMatchesPyTorchStepByStep) {
    CpuBackend be;
    Parameter p = fp32_param(be, {1.0f, -2.0f, 0.5f, 0.0f, 3.0f});
    Parameter* params[] = {&p};
    Optimizer opt(adamw(0.01f, 0.1f));
    test::RefAdamW ref{0.01f, 0.9f, 0.999f, 1e-8f, 0.1f, {}, {}, 0};
    std::vector<float> w = values_of(p.value);
    for (int step = 1; step <= 5; ++step) {
        const std::vector<float> g = grad_for(2, step, w.size());
        set_grad(be, p, g);
        test::run_step(opt, be, params);
        test::ref_adamw_step(ref, w, g);
        expect_bitwise(p.value, w, "step " + std::to_string(step));
    }
    EXPECT_EQ(opt.steps_taken(), 5);
}

// The skip decided where the step runs: a set flag leaves weights, moments
// and the step count alone (the norm is still measured, nothing is clipped),
// so AdamW's next applied step is t = 2, not 3, as PyTorch's skipped
// optimizer.step() leaves it.
TEST(Optimizer, ASkipFlagOnTheBackendLeavesEverythingAndAdamWCountsOnlyAppliedSteps) {
    CpuBackend be;
    Parameter p = fp32_param(be, {1.0f, -2.0f, 0.5f, 0.0f, 3.0f});
    Parameter* params[] = {&p};
    OptimizerConfig config = adamw(0.01f, 0.1f);
    config.clip_norm = 0.05f;  // bites on these gradients: a skipped step must not clip
    Optimizer opt(config);
    test::RefAdamW ref{0.01f, 0.9f, 0.999f, 1e-8f, 0.1f, {}, {}, 0};
    std::vector<float> w = values_of(p.value);
    Tensor flag = be.allocate({1, 1}, FormatId::fp32);
    for (int step = 1; step <= 4; ++step) {
        const bool skip = step == 2;
        const float f = skip ? 1.0f : 0.0f;
        be.upload(&f, flag);
        const std::vector<float> g = grad_for(4, step, w.size());
        set_grad(be, p, g);
        const OptimizerStepResult r = test::run_step(opt, be, params, &flag);
        double sq = 0;
        for (float x : g) sq += double(x) * x;
        EXPECT_NEAR(r.grad_norm, std::sqrt(sq), 1e-6 * std::sqrt(sq)) << "step " << step;
        EXPECT_EQ(r.applied, !skip) << "step " << step;
        EXPECT_EQ(r.clipped, !skip) << "step " << step;
        if (skip) {
            EXPECT_EQ(values_of(p.master_grad), g) << "a skipped step clipped the gradient";
            EXPECT_EQ(r.nonzero_updates, 0);
        } else {
            const float coef = 0.05f / (std::sqrt(static_cast<float>(sq)) + 1e-6f);
            const std::vector<float> clipped = values_of(p.master_grad);
            for (std::size_t i = 0; i < g.size(); ++i) ASSERT_NEAR(clipped[i], g[i] * coef, 1e-6f * std::fabs(g[i]));
            test::ref_adamw_step(ref, w, clipped);
        }
        expect_bitwise(p.value, w, "step " + std::to_string(step));
    }
    EXPECT_EQ(opt.steps_taken(), 3);
    EXPECT_EQ(ref.step, 3.0);
}

TEST(Optimizer, GradNormIsReportedBeforeClippingAndTheUpdateUsesClippedGrads) {
    CpuBackend be;
    Parameter a = fp32_param(be, {1.0f});
    Parameter b = fp32_param(be, {1.0f});
    Parameter* params[] = {&a, &b};
    OptimizerConfig c = sgd(0.5f, 0.0f, 0.0f);
    c.clip_norm = 1.0f;
    Optimizer opt(c);
    set_grad(be, a, {3.0f});
    set_grad(be, b, {4.0f});
    const OptimizerStepResult r = test::run_step(opt, be, params);
    EXPECT_EQ(r.grad_norm, 5.0f);
    EXPECT_TRUE(r.clipped);
    const float coef = 1.0f / (5.0f + 1e-6f);
    EXPECT_EQ(bits(a.value.host()[0]), bits(1.0f - 0.5f * (3.0f * coef)));
    EXPECT_EQ(bits(b.value.host()[0]), bits(1.0f - 0.5f * (4.0f * coef)));
    // Under the limit: no clipping, the plain update.
    set_grad(be, a, {0.3f});
    set_grad(be, b, {0.4f});
    const float before = a.value.host()[0];
    const OptimizerStepResult r2 = test::run_step(opt, be, params);
    EXPECT_FALSE(r2.clipped);
    EXPECT_NEAR(r2.grad_norm, 0.5f, 1e-7f);
    EXPECT_EQ(a.value.host()[0], before - 0.5f * 0.3f);
}

TEST(Optimizer, Fp16WeightsLoseSmallUpdatesWithoutMasterWeights) {
    CpuBackend be;
    Parameter p;
    p.value = make(be, FormatId::fp16, std::vector<float>(4, 1.0f));
    p.master_grad = make(be, FormatId::fp32, {1e-4f, 1e-4f, 1e-3f, 0.0f});
    Parameter* params[] = {&p};
    Optimizer opt(sgd(1.0f, 0.0f, 0.0f));
    const OptimizerStepResult r = test::run_step(opt, be, params);
    EXPECT_EQ(r.nonzero_updates, 3);
    EXPECT_EQ(r.lost_updates, 2);
    EXPECT_EQ(values_of(p.value), (std::vector<float>{1.0f, 1.0f, 0.9990234375f, 1.0f}));
    // Ten such steps still leave those weights at 1: every update is lost again.
    for (int i = 0; i < 9; ++i) EXPECT_EQ(test::run_step(opt, be, params).lost_updates, 2);
    EXPECT_EQ(p.value.host()[0], 1.0f);
}

TEST(Optimizer, Fp32MasterWeightsKeepSmallUpdatesAndFeedTheFp16Value) {
    CpuBackend be;
    Parameter p;
    p.value = make(be, FormatId::fp16, std::vector<float>(3, 1.0f));
    p.master = make(be, FormatId::fp32, std::vector<float>(3, 1.0f));
    p.master_grad = make(be, FormatId::fp32, {1e-4f, -1e-4f, 0.0f});
    Parameter* params[] = {&p};
    Optimizer opt(sgd(1.0f, 0.0f, 0.0f));
    float master0 = 1.0f, master1 = 1.0f;
    for (int step = 1; step <= 10; ++step) {
        const OptimizerStepResult r = test::run_step(opt, be, params);
        EXPECT_EQ(r.nonzero_updates, 2);
        EXPECT_EQ(r.lost_updates, 0);
        master0 = master0 - 1.0f * 1e-4f;
        master1 = master1 - 1.0f * -1e-4f;
        EXPECT_EQ(p.master.host()[0], master0) << step;
        EXPECT_EQ(p.master.host()[1], master1) << step;
        EXPECT_EQ(p.master.host()[2], 1.0f);
        // value = round_fp16(master)
        EXPECT_EQ(p.value.host()[0], round_to(FormatId::fp16, master0)) << step;
        EXPECT_EQ(p.value.host()[1], round_to(FormatId::fp16, master1)) << step;
    }
    // The master moved by 1e-3 in all: the FP16 value has followed it (hand:
    // 0.999 -> 2046 * 2^-11; 1.001 -> 1 + 2^-10).
    EXPECT_EQ(p.value.host()[0], 0.9990234375f);
    EXPECT_EQ(p.value.host()[1], 1.0f + 0x1p-10f);
    EXPECT_EQ(p.value.host()[2], 1.0f);
}

TEST(Optimizer, SwitchingToSgdWithMomentumLaterStartsTheBufferFresh) {
    CpuBackend be;
    Parameter p = fp32_param(be, {1.0f, 2.0f});
    Parameter* params[] = {&p};
    Optimizer opt(sgd(0.1f, 0.0f, 0.0f));
    test::RefSgd ref{0.1f, 0.0f, 0.0f, {}};
    std::vector<float> w = values_of(p.value);
    for (int step = 1; step <= 4; ++step) {
        if (step == 3) {  // momentum turned on: PyTorch's buffer starts as a clone of the grad
            opt.reconfigure(sgd(0.1f, 0.8f, 0.0f));
            ref.momentum = 0.8f;
        }
        const std::vector<float> g = grad_for(4, step, 2);
        set_grad(be, p, g);
        test::run_step(opt, be, params);
        test::ref_sgd_step(ref, w, g);
        expect_bitwise(p.value, w, "step " + std::to_string(step));
    }
}

TEST(Optimizer, CopiedStateContinuesLikeTheOriginalAndIsIndependent) {
    CpuBackend be;
    const std::vector<float> start = {1.0f, -0.5f, 0.25f};
    Parameter p = fp32_param(be, start);
    Parameter* params[] = {&p};
    Optimizer opt(adamw(0.01f, 0.1f));
    for (int step = 1; step <= 3; ++step) {
        set_grad(be, p, grad_for(5, step, 3));
        test::run_step(opt, be, params);
    }
    // A fork: same weights, a copy of the optimizer state.
    Parameter q = fp32_param(be, values_of(p.value));
    Parameter* fork_params[] = {&q};
    Optimizer fork(adamw(0.01f, 0.1f));
    fork.copy_state_from(be, opt);
    EXPECT_EQ(fork.steps_taken(), 3);
    for (int step = 4; step <= 6; ++step) {
        set_grad(be, p, grad_for(5, step, 3));
        set_grad(be, q, grad_for(5, step, 3));
        test::run_step(opt, be, params);
        test::run_step(fork, be, fork_params);
        expect_bitwise(q.value, values_of(p.value), "step " + std::to_string(step));
    }
    // Independent storage: a different gradient on the fork leaves the original's moments alone.
    Parameter r = fp32_param(be, values_of(p.value));
    Parameter* r_params[] = {&r};
    Optimizer witness(adamw(0.01f, 0.1f));
    witness.copy_state_from(be, opt);
    set_grad(be, q, {100.0f, 100.0f, 100.0f});
    test::run_step(fork, be, fork_params);
    set_grad(be, p, grad_for(5, 7, 3));
    set_grad(be, r, grad_for(5, 7, 3));
    test::run_step(opt, be, params);
    test::run_step(witness, be, r_params);
    expect_bitwise(r.value, values_of(p.value), "after the fork diverged");
}

}  // namespace
}  // namespace plab
