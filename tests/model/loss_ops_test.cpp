// The CPU backend's mean squared error against its closed forms:
// L = mean((p - t)^2), dL/dp = 2 (p - t) / size, times the loss scale.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/common/error.h"
#include "engine/numeric/scalar_cast.h"

namespace plab {
namespace {

Tensor make(CpuBackend& be, Shape s, const std::vector<float>& values, FormatId dtype = FormatId::fp32) {
    Tensor t = be.allocate(s, dtype);
    be.upload(values.data(), t);
    return t;
}

std::vector<float> random_values(std::size_t n, std::uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<float> v(n);
    for (auto& x : v) x = static_cast<float>(rng() % 20001) / 5000.0f - 2.0f;
    return v;
}

// Hand-computed: differences 0.5, 0, -2, 0; squares sum to 4.25; mean 1.0625.
// Every value is exact in FP32, so is every result.
TEST(MseLoss, HandComputedValues) {
    CpuBackend be;
    const Tensor pred = make(be, {2, 2}, {1.0f, 2.0f, 3.0f, 4.0f});
    const Tensor target = make(be, {2, 2}, {0.5f, 2.0f, 5.0f, 4.0f});
    EXPECT_EQ(be.mse_loss(pred, target), 1.0625f);
    Tensor d = be.allocate({2, 2}, FormatId::fp32);
    be.mse_loss_backward(pred, target, 1.0f, d);  // 2 * diff / 4
    EXPECT_EQ(std::vector<float>(d.host(), d.host() + 4), (std::vector<float>{0.25f, 0.0f, -1.0f, 0.0f}));
    be.mse_loss_backward(pred, target, 1024.0f, d);  // the loss scale multiplies the gradient
    EXPECT_EQ(std::vector<float>(d.host(), d.host() + 4), (std::vector<float>{256.0f, 0.0f, -1024.0f, 0.0f}));
}

TEST(MseLoss, MatchesFp64ClosedForm) {
    CpuBackend be;
    const Shape shape{37, 5};
    const std::vector<float> p = random_values(shape.size(), 1), t = random_values(shape.size(), 2);
    double sum = 0;
    for (std::size_t k = 0; k < p.size(); ++k) sum += (static_cast<double>(p[k]) - t[k]) * (p[k] - t[k]);
    const double loss = sum / static_cast<double>(p.size());
    const Tensor pred = make(be, shape, p), target = make(be, shape, t);
    // 185 non-negative terms summed in FP32: a few ulp of relative error.
    EXPECT_NEAR(be.mse_loss(pred, target), loss, 1e-6 * loss);
    for (float scale : {1.0f, 3.0f, 65536.0f}) {
        Tensor d = be.allocate(shape, FormatId::fp32);
        be.mse_loss_backward(pred, target, scale, d);
        for (std::size_t k = 0; k < p.size(); ++k) {
            const double want = 2.0 * (static_cast<double>(p[k]) - t[k]) * scale / static_cast<double>(p.size());
            // three FP32 roundings: the difference, the factor, the product
            EXPECT_NEAR(d.host()[k], want, 4e-7 * std::abs(want)) << "scale " << scale << ", element " << k;
        }
    }
}

// The gradient is computed in FP32 and rounded once to dpred's dtype: in
// FP16 a small gradient flushes to zero unless the loss scale lifts it, and
// too large a scale overflows to Inf (docs/DESIGN.md, "Seed facts").
TEST(MseLoss, LowPrecisionGradientIsTheFp32GradientRounded) {
    CpuBackend be;
    const Shape shape{64, 1};
    std::vector<float> p = random_values(shape.size(), 3), t = random_values(shape.size(), 4);
    p[0] = 1.0f + 0x1p-20f;  // difference 2^-20: gradient 2^-25 unscaled, below FP16's 2^-24
    t[0] = 1.0f;
    p[1] = 1024.0f;  // difference ~1e3: times 2^16 / 32 overflows FP16
    const Tensor pred = make(be, shape, p), target = make(be, shape, t);
    for (float scale : {1.0f, 65536.0f}) {
        Tensor exact = be.allocate(shape, FormatId::fp32), half = be.allocate(shape, FormatId::fp16);
        be.mse_loss_backward(pred, target, scale, exact);
        be.mse_loss_backward(pred, target, scale, half);
        for (std::size_t k = 0; k < shape.size(); ++k)
            EXPECT_EQ(half.host()[k], round_to(FormatId::fp16, exact.host()[k])) << "scale " << scale << ", " << k;
        if (scale == 1.0f) {
            EXPECT_EQ(exact.host()[0], 0x1p-25f);
            EXPECT_EQ(half.host()[0], 0.0f);
            EXPECT_TRUE(std::isfinite(half.host()[1]));
        } else {
            EXPECT_EQ(half.host()[0], 0x1p-9f);
            EXPECT_TRUE(std::isinf(half.host()[1]));
        }
    }
}

TEST(MseLoss, RejectsShapesThatDiffer) {
    CpuBackend be;
    const Tensor a = be.allocate({3, 2}, FormatId::fp32), b = be.allocate({2, 3}, FormatId::fp32);
    Tensor d = be.allocate({3, 2}, FormatId::fp32), wrong = be.allocate({2, 3}, FormatId::fp32);
    EXPECT_THROW(be.mse_loss_backward(a, b, 1.0f, d), Error);
    EXPECT_THROW(be.mse_loss_backward(a, a, 1.0f, wrong), Error);
    std::string message = "(no error)";
    try {
        be.mse_loss(a, b);
    } catch (const Error& e) {
        message = e.what();
    }
    EXPECT_EQ(message, "mse_loss: shapes differ, 3x2 vs 2x3");
}

TEST(MseLoss, EmptyTensorsGiveZero) {
    CpuBackend be;
    const Tensor a = be.allocate({0, 3}, FormatId::fp32);
    Tensor d = be.allocate({0, 3}, FormatId::fp32);
    EXPECT_EQ(be.mse_loss(a, a), 0.0f);
    EXPECT_NO_THROW(be.mse_loss_backward(a, a, 1.0f, d));
}

}  // namespace
}  // namespace plab
