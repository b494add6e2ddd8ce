// One FP8 Linear layer (engine/model/linear.h with Fp8Scales), forward and
// backward, against a hand-built FP64 reference: every matmul input is scaled,
// rounded by the engine's scalar cast (E4M3 forward, E5M2 gradients,
// saturating), multiplied and summed in FP64 and divided by the scales. The
// values are picked so that the FP32 sums are exact: results must be equal.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/model/linear.h"
#include "engine/numeric/scalar_cast.h"

namespace plab {
namespace {

constexpr int kRows = 2, kIn = 3, kOut = 2;

// x (2 x 3): 40 * 16 = 640 saturates to 448 in E4M3; 0.3 and 0.01 round.
const std::vector<float> kX = {0.3f, -1.7f, 40.0f, 0.01f, 2.0f, -0.55f};
// W (3 x 2)
const std::vector<float> kW = {0.11f, -0.07f, 0.5f, 0.023f, -0.31f, 0.9f};
const std::vector<float> kBias = {0.25f, -0.5f};
// dy (2 x 2): true gradients of 1e-6 .. 1e-4, below E5M2's 2^-16 subnormal in part.
const std::vector<float> kDy = {3e-6f, -1.2e-5f, 7.7e-5f, 5e-7f};

const Fp8Scales kScales{.input = 16.0f, .weight = 64.0f, .grad = 1048576.0f};  // 2^4, 2^6, 2^20

double e4m3(float v, float scale) { return round_to(FormatId::e4m3, v * scale, Overflow::saturate); }
double e5m2(float v, float scale) { return round_to(FormatId::e5m2, v * scale, Overflow::saturate); }

float at(const std::vector<float>& m, int cols, int r, int c) { return m[static_cast<std::size_t>(r * cols + c)]; }

struct Fp8Layer {
    CpuBackend backend;
    Linear linear{backend, "fc1", kIn, kOut, FormatId::fp32, true};
    Tensor x = backend.allocate({kRows, kIn}, FormatId::fp32);
    Tensor y = backend.allocate({kRows, kOut}, FormatId::fp32);
    Tensor dy = backend.allocate({kRows, kOut}, FormatId::fp32);
    Tensor dx = backend.allocate({kRows, kIn}, FormatId::fp32);

    Fp8Layer() {
        set_parameter(backend, linear.weight, kW.data());
        set_parameter(backend, linear.bias, kBias.data());
        backend.upload(kX.data(), x);
        backend.upload(kDy.data(), dy);
    }
    std::vector<float> host(const Tensor& t) {
        std::vector<float> v(t.size());
        backend.download(t, v.data());
        return v;
    }
};

TEST(Fp8Linear, CastsAreTheEnginesScalarCast) {
    EXPECT_EQ(e4m3(40.0f, 16.0f), 448.0);           // saturates (E4M3 has no infinity)
    EXPECT_EQ(e4m3(0.3f, 16.0f), 5.0);               // 4.8 -> 5 (step 0.5 in [4, 8))
    EXPECT_EQ(e4m3(0.01f, 16.0f), 0.15625);          // 0.16 -> 10/64 (step 1/64 in [1/8, 1/4))
    EXPECT_EQ(e5m2(3e-6f, 1.0f), 0.0);               // below 2^-17: flushes to zero unscaled
    EXPECT_EQ(e5m2(3e-6f, 1048576.0f), 3.0);         // 3.146 -> 3 (step 0.5 in [2, 4))
    EXPECT_EQ(e5m2(7.7e-5f, 1048576.0f), 80.0);      // 80.74 -> 80 (step 16 in [64, 128))
}

TEST(Fp8Linear, ForwardMatchesTheFp64Reference) {
    Fp8Layer l;
    l.linear.forward(l.backend, l.x, l.y, {FormatId::fp32}, &kScales);
    const std::vector<float> y = l.host(l.y);
    for (int i = 0; i < kRows; ++i)
        for (int j = 0; j < kOut; ++j) {
            double sum = 0;
            for (int k = 0; k < kIn; ++k)
                sum += e4m3(at(kX, kIn, i, k), kScales.input) * e4m3(at(kW, kOut, k, j), kScales.weight);
            const double expected = sum / (kScales.input * kScales.weight) + kBias[static_cast<std::size_t>(j)];
            EXPECT_EQ(y[static_cast<std::size_t>(i * kOut + j)], static_cast<float>(expected)) << i << "," << j;
        }
}

TEST(Fp8Linear, BackwardMatchesTheFp64Reference) {
    Fp8Layer l;
    l.linear.backward(l.backend, l.x, l.dy, &l.dx, {FormatId::fp32}, &kScales);
    const std::vector<float> dw = l.host(l.linear.weight.grad);
    const std::vector<float> db = l.host(l.linear.bias.grad);
    const std::vector<float> dx = l.host(l.dx);
    for (int k = 0; k < kIn; ++k)
        for (int j = 0; j < kOut; ++j) {
            double sum = 0;
            for (int i = 0; i < kRows; ++i)
                sum += e4m3(at(kX, kIn, i, k), kScales.input) * e5m2(at(kDy, kOut, i, j), kScales.grad);
            EXPECT_EQ(dw[static_cast<std::size_t>(k * kOut + j)],
                      static_cast<float>(sum / (kScales.input * kScales.grad)))
                << k << "," << j;
        }
    for (int i = 0; i < kRows; ++i)
        for (int k = 0; k < kIn; ++k) {
            double sum = 0;
            for (int j = 0; j < kOut; ++j)
                sum += e5m2(at(kDy, kOut, i, j), kScales.grad) * e4m3(at(kW, kOut, k, j), kScales.weight);
            EXPECT_EQ(dx[static_cast<std::size_t>(i * kIn + k)], static_cast<float>(sum / (kScales.grad * kScales.weight)))
                << i << "," << k;
        }
    // The bias gradient sums dy as held, in FP32: no FP8 cast.
    EXPECT_EQ(db[0], kDy[0] + kDy[2]);
    EXPECT_EQ(db[1], kDy[1] + kDy[3]);
    // By hand: dW[0][0] = (5 * 3 + 0.15625 * 80) / 2^24 (the casts of the first test).
    EXPECT_EQ(dw[0], static_cast<float>((5.0 * 3 + 0.15625 * 80) / 16777216.0));
}

TEST(Fp8Linear, WithoutScalingSmallGradientsFlushToZero) {
    Fp8Layer l;
    const Fp8Scales unscaled;
    l.linear.backward(l.backend, l.x, l.dy, &l.dx, {FormatId::fp32}, &unscaled);
    const std::vector<float> dw = l.host(l.linear.weight.grad);
    // dy column 0 holds 3e-6 (flushes) and 7.7e-5 (-> 5 * 2^-16 = 7.63e-5), column 1 -1.2e-5
    // (-> the smallest subnormal, -2^-16 = -1.53e-5) and 5e-7 (flushes).
    for (int k = 0; k < kIn; ++k) {
        EXPECT_EQ(dw[static_cast<std::size_t>(k * kOut)],
                  static_cast<float>(e4m3(at(kX, kIn, 1, k), 1.0f) * 5.0 * std::ldexp(1.0, -16)))
            << k;
        EXPECT_EQ(dw[static_cast<std::size_t>(k * kOut + 1)],
                  static_cast<float>(e4m3(at(kX, kIn, 0, k), 1.0f) * -std::ldexp(1.0, -16)))
            << k;
    }
    EXPECT_EQ(e5m2(3e-6f, 1.0f), 0.0);
    EXPECT_EQ(e5m2(5e-7f, 1.0f), 0.0);
}

}  // namespace
}  // namespace plab
