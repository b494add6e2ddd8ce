// The losses off autocast's FP32 list, on the CPU: every step and partial sum
// rounded to the compute format, checked against a reference that rounds
// with the compiler's own _Float16 conversion, and the overflow a large
// batch's sum meets in FP16 where FP32 has none.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/numeric/portable_math.h"

namespace plab {
namespace {

float h(float v) { return static_cast<float>(static_cast<_Float16>(v)); }  // the compiler's FP16 rounding

Tensor make(CpuBackend& be, Shape s, FormatId dtype, const std::vector<float>& values) {
    Tensor t = be.allocate(s, dtype);
    be.upload(values.data(), t);
    return t;
}

std::vector<float> random_values(std::size_t n, unsigned seed, float scale) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, scale);
    std::vector<float> v(n);
    for (float& x : v) x = h(normal(rng));  // FP16 values, as an FP16 layer's outputs are
    return v;
}

TEST(CpuLoss, MseInFp16RoundsEveryStepInIndexOrder) {
    CpuBackend be;
    const std::size_t n = 200;
    const std::vector<float> p = random_values(n, 1, 3.0f), t = random_values(n, 2, 3.0f);
    float total = 0;
    for (std::size_t i = 0; i < n; ++i) {
        const float d = h(p[i] - t[i]);
        total = h(total + h(d * d));
    }
    const float expected = h(total / static_cast<float>(n));
    const Tensor pred = make(be, {20, 10}, FormatId::fp16, p), target = make(be, {20, 10}, FormatId::fp32, t);
    EXPECT_EQ(be.mse_loss(pred, target, FormatId::fp16), expected);
    Tensor loss = be.allocate({1, 1}, FormatId::fp32);
    be.mse_loss_into(pred, target, FormatId::fp16, loss);
    EXPECT_EQ(loss.host()[0], expected);
    // On the list the same inputs give the FP32 sum, which differs.
    EXPECT_NE(be.mse_loss(pred, target, FormatId::fp32), expected);
}

TEST(CpuLoss, LargeBatchMseOverflowsInFp16AndNotInFp32OrBf16) {
    CpuBackend be;
    const int rows = 1024;  // errors of 10: squares of 100, a sum of 102400 > 65504
    const Tensor pred = make(be, {rows, 1}, FormatId::fp16, std::vector<float>(rows, 10.0f));
    const Tensor target = make(be, {rows, 1}, FormatId::fp32, std::vector<float>(rows, 0.0f));
    EXPECT_EQ(be.mse_loss(pred, target, FormatId::fp32), 100.0f);
    EXPECT_TRUE(std::isinf(be.mse_loss(pred, target, FormatId::fp16)));
    // BF16: no overflow, but the sum stalls once its ULP passes 100 (at 2^15 the gap is 256).
    const float bf16 = be.mse_loss(pred, target, FormatId::bf16);
    EXPECT_TRUE(std::isfinite(bf16));
    EXPECT_LT(bf16, 100.0f);
}

// One row by hand, every step through the compiler's _Float16.
float cross_entropy_reference(const float* z, float* p, int classes, int label) {
    float top = z[0];
    for (int j = 1; j < classes; ++j) top = std::max(top, z[j]);
    float sum = 0;
    for (int j = 0; j < classes; ++j) sum = h(sum + h(portable_exp(h(z[j] - top))));
    const float log_sum = h(portable_log(sum));
    for (int j = 0; j < classes; ++j) p[j] = h(portable_exp(h(h(z[j] - top) - log_sum)));
    return h(log_sum - h(z[label] - top));
}

TEST(CpuLoss, CrossEntropyInFp16RoundsEveryStepInIndexOrder) {
    CpuBackend be;
    const int rows = 64, classes = 5;
    const std::vector<float> z = random_values(static_cast<std::size_t>(rows) * classes, 3, 4.0f);
    std::vector<float> labels(rows), probs(z.size());
    float total = 0;
    for (int i = 0; i < rows; ++i) {
        labels[i] = static_cast<float>(i % classes);
        total = h(total + cross_entropy_reference(&z[i * classes], &probs[i * classes], classes, i % classes));
    }
    const float expected = h(total / static_cast<float>(rows));
    const Tensor logits = make(be, {rows, classes}, FormatId::fp16, z);
    const Tensor label_tensor = make(be, {rows, 1}, FormatId::fp32, labels);
    Tensor p = be.allocate({rows, classes}, FormatId::fp16), loss = be.allocate({1, 1}, FormatId::fp32);
    be.softmax_cross_entropy_into(logits, label_tensor, FormatId::fp16, p, loss);
    EXPECT_EQ(loss.host()[0], expected);
    EXPECT_EQ(std::vector<float>(p.host(), p.host() + p.size()), probs);
}

TEST(CpuLoss, ConfidentlyWrongBatchOverflowsTheCrossEntropySumInFp16) {
    CpuBackend be;
    const int rows = 256, classes = 2;  // logits +300 / -300, label on the -300: each row's loss is 600
    std::vector<float> z;
    for (int i = 0; i < rows; ++i) z.insert(z.end(), {300.0f, -300.0f});
    const Tensor logits = make(be, {rows, classes}, FormatId::fp16, z);
    const Tensor labels = make(be, {rows, 1}, FormatId::fp32, std::vector<float>(rows, 1.0f));
    Tensor p16 = be.allocate({rows, classes}, FormatId::fp16), p32 = be.allocate({rows, classes}, FormatId::fp32);
    EXPECT_TRUE(std::isinf(be.softmax_cross_entropy(logits, labels, p16, FormatId::fp16)));  // 256 x 600 > 65504
    EXPECT_EQ(be.softmax_cross_entropy(logits, labels, p32, FormatId::fp32), 600.0f);
}

}  // namespace
}  // namespace plab
