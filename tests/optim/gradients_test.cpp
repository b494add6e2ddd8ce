// Micro-batch accumulation, the fused unscale + finite check, the global
// norm and clipping, over Parameters, against hand-computed values.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/optim/gradients.h"
#include "optim/optim_test_util.h"

namespace plab {
namespace {

using test::bits;
using test::make;
using test::values_of;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

float ulp_of(float x) { return std::nextafter(std::abs(x), kInf) - std::abs(x); }

// A parameter whose summed (scaled) gradient is `grad_sum` in `dtype`.
Parameter with_grad_sum(CpuBackend& be, FormatId dtype, const std::vector<float>& grad_sum) {
    Parameter p;
    p.value = make(be, dtype, std::vector<float>(grad_sum.size(), 0.0f));
    p.grad_sum = make(be, dtype, grad_sum);
    p.master_grad = be.allocate(p.value.shape(), FormatId::fp32);
    return p;
}

TEST(Gradients, AccumulationRoundsEachSumToTheGradSumFormat) {
    CpuBackend be;
    Parameter p;
    p.value = make(be, FormatId::fp16, {0.0f, 0.0f, 0.0f});
    p.grad_sum = make(be, FormatId::fp16, {9.0f, 9.0f, 9.0f});  // left from the previous step
    Parameter* params[] = {&p};
    p.grad = make(be, FormatId::fp16, {1.0f, 2048.0f, 1.0f});
    accumulate_gradients(be, params, true);
    EXPECT_EQ(values_of(p.grad_sum), (std::vector<float>{1.0f, 2048.0f, 1.0f}));
    p.grad = make(be, FormatId::fp16, {0x1p-11f, 1.0f, 0x3p-12f});
    accumulate_gradients(be, params, false);
    // Each sum rounds to FP16: 1 + 2^-11 and 2049 are ties to even; 1 + 3*2^-12 rounds up.
    EXPECT_EQ(values_of(p.grad_sum), (std::vector<float>{1.0f, 2048.0f, 1.0f + 0x1p-10f}));
    // A third micro-batch adds to the rounded sum, not to an exact one: 1 + 2 * 2^-11
    // in exact arithmetic would be 1 + 2^-10.
    p.grad = make(be, FormatId::fp16, {0x1p-11f, 1.0f, 0.0f});
    accumulate_gradients(be, params, false);
    EXPECT_EQ(p.grad_sum.host()[0], 1.0f);
    EXPECT_EQ(p.grad_sum.host()[1], 2048.0f);
}

TEST(Gradients, AccumulationAllocatesAMissingSumInTheValueFormat) {
    CpuBackend be;
    Parameter p;
    p.value = make(be, FormatId::bf16, {0.0f, 0.0f});
    p.grad = make(be, FormatId::fp32, {1.0f + 0x1p-10f, -3.0f});
    Parameter* params[] = {&p};
    accumulate_gradients(be, params, true);
    ASSERT_FALSE(p.grad_sum.empty());
    EXPECT_EQ(p.grad_sum.dtype(), FormatId::bf16);
    EXPECT_EQ(values_of(p.grad_sum), (std::vector<float>{1.0f, -3.0f}));  // BF16 keeps 7 bits
}

TEST(Gradients, InverseScaleIsPyTorchsDoubleReciprocal) {
    EXPECT_EQ(inverse_scale(65536.0f), 0x1p-16f);
    EXPECT_EQ(bits(inverse_scale(3.0f)), bits(static_cast<float>(1.0 / 3.0)));
    EXPECT_EQ(inverse_scale(1.0f), 1.0f);
    EXPECT_EQ(bits(inverse_scale(1.7f)), bits(static_cast<float>(1.0 / static_cast<double>(1.7f))));
}

TEST(Gradients, UnscaleByAPowerOfTwoIsExact) {
    CpuBackend be;
    Parameter a = with_grad_sum(be, FormatId::fp16, {65504.0f, -0x1p-24f, 0.0f});
    Parameter b = with_grad_sum(be, FormatId::fp32, {3.0f * 65536.0f, 1.0f});
    Parameter* params[] = {&a, &b};
    int first = 99;
    EXPECT_FALSE(unscale_gradients(be, params, 65536.0f, &first));
    EXPECT_EQ(first, -1);
    EXPECT_EQ(values_of(a.master_grad), (std::vector<float>{65504.0f / 65536.0f, -0x1p-40f, 0.0f}));
    EXPECT_EQ(values_of(b.master_grad), (std::vector<float>{3.0f, 0x1p-16f}));
}

TEST(Gradients, UnscaleByThreeMultipliesByTheRoundedInverse) {
    CpuBackend be;
    // Every FP16 value k * 2^-10, k = 1..2048: each unscaled value must be the
    // FP32 product with float(1/3), and for some the quotient x / 3 differs.
    std::vector<float> grads;
    for (int k = 1; k <= 2048; ++k) grads.push_back(static_cast<float>(k) * 0x1p-10f);
    Parameter p = with_grad_sum(be, FormatId::fp16, grads);
    Parameter* params[] = {&p};
    EXPECT_FALSE(unscale_gradients(be, params, 3.0f));
    const float inv = static_cast<float>(1.0 / 3.0);
    int differs_from_division = 0;
    for (std::size_t i = 0; i < grads.size(); ++i) {
        ASSERT_EQ(bits(p.master_grad.host()[i]), bits(grads[i] * inv)) << grads[i];
        differs_from_division += bits(grads[i] * inv) != bits(grads[i] / 3.0f);
    }
    EXPECT_GT(differs_from_division, 0);
}

TEST(Gradients, UnscaleFindsInfAndNaNAndTheFirstParameterHoldingOne) {
    CpuBackend be;
    // Parameters in backward order: fc2 first.
    Parameter clean = with_grad_sum(be, FormatId::fp16, {4.0f, -8.0f});
    Parameter inf = with_grad_sum(be, FormatId::fp16, {1.0f, kInf});
    Parameter nan = with_grad_sum(be, FormatId::fp16, {kNaN, 16.0f});
    Parameter* params[] = {&clean, &inf, &nan};
    int first = -7;
    EXPECT_TRUE(unscale_gradients(be, params, 4.0f, &first));
    EXPECT_EQ(first, 1);
    // No early exit: the parameter after the first bad one is still unscaled.
    EXPECT_EQ(nan.master_grad.host()[1], 4.0f);
    EXPECT_TRUE(std::isnan(nan.master_grad.host()[0]));
    EXPECT_EQ(values_of(clean.master_grad), (std::vector<float>{1.0f, -2.0f}));

    Parameter* nan_first[] = {&nan, &clean};
    EXPECT_TRUE(unscale_gradients(be, nan_first, 4.0f, &first));
    EXPECT_EQ(first, 0);
    Parameter* only_clean[] = {&clean};
    EXPECT_FALSE(unscale_gradients(be, only_clean, 4.0f, &first));
    EXPECT_EQ(first, -1);
    // FP16 overflow in the scaled gradient: 65504 * 2 became Inf when it was written.
    Parameter overflowed = with_grad_sum(be, FormatId::fp16, {65504.0f * 2.0f});
    Parameter* one[] = {&overflowed};
    EXPECT_TRUE(unscale_gradients(be, one, 65536.0f));
}

TEST(Gradients, UnscaleAllocatesAMissingMasterGrad) {
    CpuBackend be;
    Parameter p;
    p.grad_sum = make(be, FormatId::fp16, {2.0f, 6.0f});
    Parameter* params[] = {&p};
    EXPECT_FALSE(unscale_gradients(be, params, 2.0f));
    EXPECT_EQ(p.master_grad.dtype(), FormatId::fp32);
    EXPECT_EQ(values_of(p.master_grad), (std::vector<float>{1.0f, 3.0f}));
}

TEST(Gradients, GlobalNormSumsSquaresOverAllParameters) {
    CpuBackend be;
    Parameter a = with_grad_sum(be, FormatId::fp32, {3.0f});
    Parameter b = with_grad_sum(be, FormatId::fp32, {0.0f, 4.0f});
    Parameter* params[] = {&a, &b};
    unscale_gradients(be, params, 1.0f);
    EXPECT_EQ(global_grad_norm(be, params), 5.0f);
    Parameter c = with_grad_sum(be, FormatId::fp32, {12.0f});
    Parameter* three[] = {&a, &b, &c};
    unscale_gradients(be, three, 1.0f);
    EXPECT_EQ(global_grad_norm(be, three), 13.0f);
    EXPECT_EQ(global_grad_norm(be, std::span<Parameter* const>{}), 0.0f);
}

TEST(Gradients, ClippingAfterUnscaleMatchesClipGradNorm) {
    CpuBackend be;
    // Scaled by 2^16 in FP16: (3, 4) * 65536 overflows FP16, so FP32 grad_sum here.
    Parameter a = with_grad_sum(be, FormatId::fp32, {3.0f * 65536.0f});
    Parameter b = with_grad_sum(be, FormatId::fp32, {4.0f * 65536.0f});
    Parameter* params[] = {&a, &b};
    ASSERT_FALSE(unscale_gradients(be, params, 65536.0f));
    // The norm of the unscaled gradients is 5; clipping to 1 gives (0.6, 0.8),
    // less the 1e-6 of clip_grad_norm_'s denominator: a relative 2e-7, which
    // puts both 2 and 3 ULPs below (so not within 1 ULP of 0.6 and 0.8).
    EXPECT_TRUE(clip_grad_norm(be, params, 1.0f));
    EXPECT_NEAR(a.master_grad.host()[0], 0.6f, 3 * ulp_of(0.6f));
    EXPECT_NEAR(b.master_grad.host()[0], 0.8f, 3 * ulp_of(0.8f));
    EXPECT_LT(a.master_grad.host()[0], 0.6f);
    EXPECT_LT(b.master_grad.host()[0], 0.8f);
    // Exactly clip_grad_norm_'s coefficient: max_norm / (norm + 1e-6) in FP32 ...
    const float coef = 1.0f / (5.0f + 1e-6f);
    EXPECT_EQ(bits(a.master_grad.host()[0]), bits(3.0f * coef));
    EXPECT_EQ(bits(b.master_grad.host()[0]), bits(4.0f * coef));
    // ... and PyTorch 1.13's torch.nn.utils.clip_grad_norm_ result for these grads.
    EXPECT_EQ(bits(a.master_grad.host()[0]), bits(0x1.33333p-1f));
    EXPECT_EQ(bits(b.master_grad.host()[0]), bits(0x1.999994p-1f));

    // Under the limit nothing changes.
    ASSERT_FALSE(unscale_gradients(be, params, 65536.0f));
    EXPECT_FALSE(clip_grad_norm(be, params, 6.0f));
    EXPECT_EQ(a.master_grad.host()[0], 3.0f);
    EXPECT_EQ(b.master_grad.host()[0], 4.0f);
    // At the limit the 1e-6 still makes the coefficient just below 1, as in PyTorch.
    EXPECT_TRUE(clip_gradients(be, params, 5.0f, 5.0f));
    EXPECT_EQ(bits(a.master_grad.host()[0]), bits(3.0f * (5.0f / (5.0f + 1e-6f))));
    EXPECT_LT(a.master_grad.host()[0], 3.0f);
}

}  // namespace
}  // namespace plab
