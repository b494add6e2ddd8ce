// The CPU backend's optimizer-side ops against hand-computed values and the
// slow PyTorch-order references of optim_test_util.h, bit for bit.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/backend/cpu/subnormal_arithmetic.h"
#include "engine/common/error.h"
#include "engine/numeric/scalar_cast.h"
#include "numeric/mxcsr_flags.h"
#include "optim/optim_test_util.h"

namespace plab {
namespace {

using test::bits;
using test::make;
using test::values_of;

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// n values spread over [-scale, scale], fixed by the seed (mt19937's output
// is fixed by the standard; the conversion here is plain arithmetic).
std::vector<float> spread(std::size_t n, std::uint32_t seed, float scale) {
    std::mt19937 rng(seed);
    std::vector<float> v(n);
    for (float& x : v) x = (static_cast<float>(rng() % 200001) / 100000.0f - 1.0f) * scale;
    return v;
}

void expect_bitwise(const std::vector<float>& got, const std::vector<float>& want, const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (std::size_t i = 0; i < got.size(); ++i)
        ASSERT_EQ(bits(got[i]), bits(want[i])) << what << " element " << i << ": " << got[i] << " vs " << want[i];
}

// ---------------------------------------------------------------------------
// accumulate, unscale_and_check, sum_of_squares, scale_in_place

TEST(CpuOptimOps, AccumulateRoundsEverySumToTheDestinationFormat) {
    CpuBackend be;
    // FP16 steps: 2^-10 just above 1, 2 above 2048.
    const Tensor first = make(be, FormatId::fp16, {1.0f, 1.0f, 2048.0f, 2048.0f, -3.0f});
    const Tensor second = make(be, FormatId::fp16, {0x1p-11f, 0x3p-12f, 1.0f, 3.0f, 0.5f});
    Tensor sum = make(be, FormatId::fp16, {7.0f, 7.0f, 7.0f, 7.0f, 7.0f});
    be.accumulate(first, sum, true);  // overwrite: the old 7s are gone
    EXPECT_EQ(values_of(sum), values_of(first));
    be.accumulate(second, sum, false);
    // 1 + 2^-11 is a tie: to even (1); 1 + 0.75 * 2^-10 rounds up; 2049 ties to 2048,
    // 2051 ties to 2052 (even significands); -2.5 is exact.
    EXPECT_EQ(values_of(sum), (std::vector<float>{1.0f, 1.0f + 0x1p-10f, 2048.0f, 2052.0f, -2.5f}));
    Tensor wide = make(be, FormatId::fp32, {1.0f, 1.0f, 2048.0f, 2048.0f, -3.0f});
    be.accumulate(second, wide, false);
    EXPECT_EQ(values_of(wide), (std::vector<float>{1.0f + 0x1p-11f, 1.0f + 0x3p-12f, 2049.0f, 2051.0f, -2.5f}));
    Tensor wrong = be.allocate({1, 4}, FormatId::fp16);
    EXPECT_THROW(be.accumulate(first, wrong, false), Error);
}

TEST(CpuOptimOps, UnscaleMultipliesByTheInverseAndFlagsNonFinite) {
    CpuBackend be;
    const Tensor grad = make(be, FormatId::fp16, {65504.0f, -1.0f, 0x1p-24f, 0.0f, 3.0f});
    Tensor out = be.allocate({1, 5}, FormatId::fp32);
    EXPECT_FALSE(be.unscale_and_check(grad, 0x1p-16f, out));
    EXPECT_EQ(values_of(out), (std::vector<float>{65504.0f * 0x1p-16f, -0x1p-16f, 0x1p-40f, 0.0f, 3.0f * 0x1p-16f}));

    // Multiply by the FP32 inverse, not divide: for 5 the two differ in FP32.
    const float third = static_cast<float>(1.0 / 3.0);
    const Tensor five = make(be, FormatId::fp32, {5.0f});
    Tensor one = be.allocate({1, 1}, FormatId::fp32);
    EXPECT_FALSE(be.unscale_and_check(five, third, one));
    EXPECT_EQ(bits(one.host()[0]), bits(5.0f * third));
    EXPECT_NE(bits(5.0f * third), bits(5.0f / 3.0f));  // the case really tells them apart
}

TEST(CpuOptimOps, UnscaleChecksEveryElementWithoutStopping) {
    CpuBackend be;
    for (float bad : {kInf, -kInf, kNaN}) {
        const Tensor grad = make(be, FormatId::fp16, {bad, 4.0f, 8.0f});
        Tensor out = be.allocate({1, 3}, FormatId::fp32);
        EXPECT_TRUE(be.unscale_and_check(grad, 0.25f, out)) << bad;
        EXPECT_EQ(out.host()[1], 1.0f);  // written after the bad element
        EXPECT_EQ(out.host()[2], 2.0f);
        EXPECT_FALSE(std::isfinite(out.host()[0]));
    }
    // A finite gradient that overflows when unscaled by a scale < 1 is caught too.
    const Tensor big = make(be, FormatId::fp32, {3e38f, 1.0f});
    Tensor out = be.allocate({1, 2}, FormatId::fp32);
    EXPECT_TRUE(be.unscale_and_check(big, 2.0f, out));
    EXPECT_TRUE(std::isinf(out.host()[0]));
    // The destination is the FP32 master gradient.
    Tensor half = be.allocate({1, 2}, FormatId::fp16);
    EXPECT_THROW(be.unscale_and_check(big, 1.0f, half), Error);
}

TEST(CpuOptimOps, SumOfSquaresInIndexOrder) {
    CpuBackend be;
    EXPECT_EQ(be.sum_of_squares(make(be, FormatId::fp32, {3.0f, -4.0f})), 25.0f);
    // 2^24 + 1 rounds back to 2^24 twice in index order; the reverse order would give 2^24 + 2.
    EXPECT_EQ(be.sum_of_squares(make(be, FormatId::fp32, {4096.0f, 1.0f, 1.0f})), 16777216.0f);
    EXPECT_EQ(be.sum_of_squares(make(be, FormatId::fp32, {1.0f, 1.0f, 4096.0f})), 16777218.0f);
    EXPECT_EQ(be.sum_of_squares(be.allocate({0, 0}, FormatId::fp32)), 0.0f);
}

TEST(CpuOptimOps, ScaleInPlaceRoundsToTheTensorFormat) {
    CpuBackend be;
    Tensor h = make(be, FormatId::fp16, {1.0f, 1000.0f});
    // 1.0003 is below half an FP16 step above 1 (2^-11): back to 1. Steps are
    // 0.5 at 1000: 1000.3 goes to 1000.5.
    be.scale_in_place(h, 1.0003f);
    EXPECT_EQ(values_of(h), (std::vector<float>{1.0f, 1000.5f}));
    be.scale_in_place(h, 1.0006f);  // above half a step: 1 + 2^-10
    EXPECT_EQ(h.host()[0], 1.0f + 0x1p-10f);
    Tensor f = make(be, FormatId::fp32, {1.0f, 3.0f});
    be.scale_in_place(f, 0.6f);
    EXPECT_EQ(values_of(f), (std::vector<float>{0.6f, 3.0f * 0.6f}));
}

// ---------------------------------------------------------------------------
// sgd_update

TEST(CpuOptimOps, SgdHandCase) {
    CpuBackend be;
    Tensor w = make(be, FormatId::fp32, {3.0f});
    const Tensor g = make(be, FormatId::fp32, {2.0f});
    Tensor none;
    const UpdateCount c = be.sgd_update(w, g, none, {.lr = 0.5f, .momentum = 0.0f, .weight_decay = 0.0f});
    EXPECT_EQ(w.host()[0], 2.0f);  // 3 - 0.5 * 2
    EXPECT_EQ(c.nonzero, 1);
    EXPECT_EQ(c.lost, 0);
    // Momentum 0.5, weight decay 0.25 from w = 2: g' = 2 + 0.5 = 2.5; v = 2.5, then
    // g' = 2 + 0.25 * 0.75 = 2.1875, v = 1.25 + 2.1875 = 3.4375.
    Tensor v = be.allocate({1, 1}, FormatId::fp32);
    be.sgd_update(w, g, v, {.lr = 0.5f, .momentum = 0.5f, .weight_decay = 0.25f});
    EXPECT_EQ(v.host()[0], 2.5f);
    EXPECT_EQ(w.host()[0], 0.75f);
    be.sgd_update(w, g, v, {.lr = 0.5f, .momentum = 0.5f, .weight_decay = 0.25f});
    EXPECT_EQ(v.host()[0], 3.4375f);
    EXPECT_EQ(w.host()[0], 0.75f - 0.5f * 3.4375f);
}

TEST(CpuOptimOps, SgdFollowsPyTorchOverSeveralSteps) {
    CpuBackend be;
    const std::size_t n = 1000;  // several chunks, the last one partial
    struct Config {
        float lr, momentum, weight_decay;
    };
    for (const Config k : {Config{0.1f, 0.0f, 0.0f}, Config{0.05f, 0.9f, 0.0f}, Config{0.3f, 0.0f, 0.01f},
                           Config{0.01f, 0.9f, 5e-4f}, Config{0.7f, 0.37f, 0.2f}}) {
        const std::string what = "lr " + std::to_string(k.lr) + " momentum " + std::to_string(k.momentum) +
                " weight_decay " + std::to_string(k.weight_decay);
        std::vector<float> ref_w = spread(n, 1, 2.0f);
        test::RefSgd ref{k.lr, k.momentum, k.weight_decay, {}};
        Tensor w = make(be, FormatId::fp32, ref_w);
        Tensor v = be.allocate(w.shape(), FormatId::fp32);
        for (int step = 1; step <= 6; ++step) {
            const std::vector<float> grad = spread(n, 100 + step, 0.5f * static_cast<float>(step));
            const Tensor g = make(be, FormatId::fp32, grad);
            be.sgd_update(w, g, v, {.lr = k.lr, .momentum = k.momentum, .weight_decay = k.weight_decay});
            test::ref_sgd_step(ref, ref_w, grad);
            expect_bitwise(values_of(w), ref_w, what + " step " + std::to_string(step));
            if (k.momentum != 0.0f) expect_bitwise(values_of(v), ref.buf, what + " buffer");
        }
    }
}

// ---------------------------------------------------------------------------
// adamw_update

struct AdamWCase {
    float lr, beta1, beta2, eps, weight_decay;
};

TEST(CpuOptimOps, AdamWFollowsPyTorchAtSteps1To5) {
    CpuBackend be;
    const std::size_t n = 700;
    for (const AdamWCase k : {AdamWCase{1e-3f, 0.9f, 0.999f, 1e-8f, 0.0f}, AdamWCase{1e-2f, 0.9f, 0.999f, 1e-8f, 0.01f},
                              AdamWCase{0.1f, 0.5f, 0.9f, 1e-3f, 0.1f}, AdamWCase{3e-4f, 0.95f, 0.98f, 1e-6f, 0.3f},
                              AdamWCase{0.05f, 0.0f, 0.0f, 1e-8f, 0.0f}, AdamWCase{0.05f, 0.6f, 0.99f, 1e-8f, 0.0f}}) {
        const std::string what = "lr " + std::to_string(k.lr) + " betas " + std::to_string(k.beta1) + "," +
                std::to_string(k.beta2) + " wd " + std::to_string(k.weight_decay);
        std::vector<float> ref_w = spread(n, 7, 1.5f);
        test::RefAdamW ref{k.lr, k.beta1, k.beta2, k.eps, k.weight_decay, {}, {}, 0};
        Tensor w = make(be, FormatId::fp32, ref_w);
        Tensor m = be.allocate(w.shape(), FormatId::fp32);
        Tensor v = be.allocate(w.shape(), FormatId::fp32);
        for (int step = 1; step <= 5; ++step) {
            std::vector<float> grad = spread(n, 200 + step, 0.1f * static_cast<float>(step));
            grad[0] = 0.0f;  // a zero gradient: only the decay moves the weight
            const Tensor g = make(be, FormatId::fp32, grad);
            be.adamw_update(w, g, m, v,
                            {.lr = k.lr, .beta1 = k.beta1, .beta2 = k.beta2, .eps = k.eps,
                             .weight_decay = k.weight_decay, .step = step});
            test::ref_adamw_step(ref, ref_w, grad);
            const std::string at = what + " step " + std::to_string(step);
            expect_bitwise(values_of(w), ref_w, at + " weights");
            expect_bitwise(values_of(m), ref.exp_avg, at + " exp_avg");
            expect_bitwise(values_of(v), ref.exp_avg_sq, at + " exp_avg_sq");
        }
    }
}

// The textbook AdamW in double: a check on the formula itself (bias
// corrections, where the decay applies), independent of FP32 ordering.
TEST(CpuOptimOps, AdamWMatchesTheTextbookFormulaInDouble) {
    CpuBackend be;
    const AdamWCase k{0.01f, 0.9f, 0.999f, 1e-8f, 0.05f};
    const std::vector<float> start = {1.0f, -0.5f, 2.0f, 0.25f};
    std::vector<double> w(start.begin(), start.end()), m(4, 0.0), v(4, 0.0);
    Tensor tw = make(be, FormatId::fp32, start);
    Tensor tm = be.allocate(tw.shape(), FormatId::fp32);
    Tensor tv = be.allocate(tw.shape(), FormatId::fp32);
    for (int step = 1; step <= 5; ++step) {
        const std::vector<float> g = {0.5f * step, -0.25f, 1e-3f * step, -2.0f / step};
        be.adamw_update(tw, make(be, FormatId::fp32, g), tm, tv,
                        {.lr = k.lr, .beta1 = k.beta1, .beta2 = k.beta2, .eps = k.eps, .weight_decay = k.weight_decay,
                         .step = step});
        for (std::size_t i = 0; i < 4; ++i) {
            w[i] -= double(k.lr) * k.weight_decay * w[i];
            m[i] = k.beta1 * m[i] + (1.0 - k.beta1) * g[i];
            v[i] = k.beta2 * v[i] + (1.0 - k.beta2) * g[i] * g[i];
            const double m_hat = m[i] / (1.0 - std::pow(double(k.beta1), step));
            const double v_hat = v[i] / (1.0 - std::pow(double(k.beta2), step));
            w[i] -= k.lr * m_hat / (std::sqrt(v_hat) + k.eps);
            EXPECT_NEAR(tw.host()[i], w[i], 2e-6 * std::abs(w[i])) << "step " << step << " element " << i;
        }
    }
    // Step 1 without decay moves every weight by lr against the gradient's sign
    // (m_hat / sqrt(v_hat) = g / |g|), up to eps.
    Tensor w1 = make(be, FormatId::fp32, {1.0f, 1.0f});
    Tensor m1 = be.allocate(w1.shape(), FormatId::fp32);
    Tensor v1 = be.allocate(w1.shape(), FormatId::fp32);
    be.adamw_update(w1, make(be, FormatId::fp32, {3.0f, -0.02f}), m1, v1, {.lr = 0.01f, .step = 1});
    EXPECT_NEAR(w1.host()[0], 0.99f, 1e-7f);
    EXPECT_NEAR(w1.host()[1], 1.01f, 1e-7f);
}

// ---------------------------------------------------------------------------
// state near the subnormal range

// Moments as a long run leaves them: units that stopped learning (gradient
// 0) whose moments decayed into the subnormal range, where 0.9 * 2^-149
// rounds back to 2^-149, mixed lane by lane with live ones, tiny gradients,
// and values at the 2^-126 edge.
struct NearSubnormalState {
    std::vector<float> w, m, v, g;
};

NearSubnormalState near_subnormal_state(std::size_t n) {
    NearSubnormalState s{spread(n, 31, 1.0f), spread(n, 32, 1e-3f), spread(n, 33, 1e-6f), spread(n, 34, 0.05f)};
    for (float& x : s.v) x = std::fabs(x);
    for (std::size_t i = 0; i < n; ++i) {
        switch (i % 7) {
            case 0: s.m[i] = bits_float(1 + i % 3); s.v[i] = bits_float(1 + i % 500); s.g[i] = 0.0f; break;
            case 1: s.m[i] = -0x1p-130f; s.v[i] = 0x1p-140f; s.g[i] = 0.0f; break;
            case 2: s.g[i] = 0x1p-70f * s.g[i]; break;               // g * g * (1 - beta2) is subnormal
            case 3: s.m[i] = 0x1p-126f; s.v[i] = 0x1p-126f; break;  // the edge
            default: break;                                          // a live lane
        }
    }
    return s;
}

// Sets the CPU backend's way with subnormals for one scope.
class SubnormalWay {
public:
    explicit SubnormalWay(cpu::SubnormalArithmetic way) { cpu::set_subnormal_arithmetic(way); }
    ~SubnormalWay() { cpu::set_subnormal_arithmetic(cpu::SubnormalArithmetic::automatic); }
};

// body(backend, state) once with each way, on a fresh backend.
template <typename Body>
void with_both_ways(Body body) {
    for (const auto way : {cpu::SubnormalArithmetic::hardware, cpu::SubnormalArithmetic::exact_lanes}) {
        SCOPED_TRACE(cpu::subnormal_arithmetic_name(way));
        const SubnormalWay scope(way);
        CpuBackend be;
        body(be, near_subnormal_state(1000));
    }
}

// With exact lanes those lanes go through SoftFp32, the rest through the
// vectorised loop; with the hardware's way all through the latter. Either
// way every lane must be PyTorch's FP32 result bit for bit.
TEST(CpuOptimOps, AdamWOnSubnormalMomentsFollowsPyTorch) {
    with_both_ways([](CpuBackend& be, const NearSubnormalState& start) {
        test::RefAdamW ref{2e-3f, 0.9f, 0.999f, 1e-8f, 0.01f, start.m, start.v, 40000};
        std::vector<float> ref_w = start.w;
        Tensor w = make(be, FormatId::fp32, start.w), m = make(be, FormatId::fp32, start.m),
               v = make(be, FormatId::fp32, start.v);
        for (int step = 40001; step <= 40004; ++step) {
            const Tensor g = make(be, FormatId::fp32, start.g);
            be.adamw_update(w, g, m, v, {.lr = 2e-3f, .eps = 1e-8f, .weight_decay = 0.01f, .step = step});
            test::ref_adamw_step(ref, ref_w, start.g);
            const std::string at = "step " + std::to_string(step);
            expect_bitwise(values_of(w), ref_w, at + " weights");
            expect_bitwise(values_of(m), ref.exp_avg, at + " exp_avg");
            expect_bitwise(values_of(v), ref.exp_avg_sq, at + " exp_avg_sq");
        }
        EXPECT_EQ(bits(m.host()[0]), 1u);  // stuck at 2^-149, as PyTorch's would be
    });
}

TEST(CpuOptimOps, SgdMomentumOnSubnormalBuffersFollowsPyTorch) {
    with_both_ways([](CpuBackend& be, const NearSubnormalState& start) {
        test::RefSgd ref{0.05f, 0.9f, 1e-4f, start.m};
        std::vector<float> ref_w = start.w;
        Tensor w = make(be, FormatId::fp32, start.w), velocity = make(be, FormatId::fp32, start.m);
        for (int step = 1; step <= 4; ++step) {
            be.sgd_update(w, make(be, FormatId::fp32, start.g), velocity, {.lr = 0.05f, .momentum = 0.9f,
                                                                            .weight_decay = 1e-4f});
            test::ref_sgd_step(ref, ref_w, start.g);
            expect_bitwise(values_of(w), ref_w, "step " + std::to_string(step) + " weights");
            expect_bitwise(values_of(velocity), ref.buf, "step " + std::to_string(step) + " buffer");
        }
    });
}

// A long run slowed down (on cores with a slow subnormal path) as more and
// more moments sat in the subnormal range: with exact lanes an update of
// such state hands the FPU no subnormal operand and makes no subnormal.
TEST(CpuOptimOps, UpdatesOfSubnormalStateTakeNoSubnormalArithmetic) {
    if (!mxcsr::available()) GTEST_SKIP() << "no MXCSR on this architecture";
    const SubnormalWay scope(cpu::SubnormalArithmetic::exact_lanes);
    CpuBackend be;
    const std::size_t n = 1000;
    std::vector<float> stuck(n), zeros(n, 0.0f);
    for (std::size_t i = 0; i < n; ++i) stuck[i] = bits_float(1 + i % 300);
    Tensor w = make(be, FormatId::fp32, spread(n, 5, 1.0f)), m = make(be, FormatId::fp32, stuck),
           v = make(be, FormatId::fp32, stuck), velocity = make(be, FormatId::fp32, stuck);
    const Tensor g = make(be, FormatId::fp32, zeros);
    mxcsr::clear();
    be.adamw_update(w, g, m, v, {.lr = 2e-3f, .step = 1000});  // 0.9^t still a normal double
    be.sgd_update(w, g, velocity, {.lr = 0.05f, .momentum = 0.9f});
    EXPECT_EQ(mxcsr::subnormal_flags(), 0u);
    EXPECT_EQ(bits(m.host()[0]), 1u);  // the state itself is unchanged: still subnormal
    EXPECT_EQ(bits(velocity.host()[0]), 1u);
}

// ---------------------------------------------------------------------------
// lost updates

TEST(CpuOptimOps, LostUpdatesOnFp16Weights) {
    CpuBackend be;
    // Around 1 an FP16 step is 2^-11 below and 2^-10 above: an update smaller
    // than half a step (2^-12 = 2.4e-4) is rounded away.
    Tensor w = make(be, FormatId::fp16, std::vector<float>(10, 1.0f));
    const Tensor g = make(be, FormatId::fp32, {1e-4f, 1e-4f, 1e-4f, 1e-3f, 1e-3f, 1e-3f, 1e-3f, 1e-3f, 0.0f, 0.0f});
    Tensor none;
    const UpdateCount c = be.sgd_update(w, g, none, {.lr = 1.0f});
    EXPECT_EQ(c.nonzero, 8);
    EXPECT_EQ(c.lost, 3);
    // 1 - 1e-3 = 0.999 is 2045.95 steps of 2^-11: 2046 * 2^-11.
    EXPECT_EQ(values_of(w), (std::vector<float>{1.0f, 1.0f, 1.0f, 0.9990234375f, 0.9990234375f, 0.9990234375f,
                                                0.9990234375f, 0.9990234375f, 1.0f, 1.0f}));
    // The same updates on FP32 weights are all kept.
    Tensor w32 = make(be, FormatId::fp32, std::vector<float>(10, 1.0f));
    const UpdateCount c32 = be.sgd_update(w32, g, none, {.lr = 1.0f});
    EXPECT_EQ(c32.nonzero, 8);
    EXPECT_EQ(c32.lost, 0);
    EXPECT_EQ(w32.host()[0], 1.0f - 1e-4f);
    // AdamW's first step moves by about lr: lr = 1e-4 is lost on FP16, 1e-3 is not.
    for (auto [lr, lost] : {std::pair{1e-4f, 4}, std::pair{1e-3f, 0}}) {
        Tensor wa = make(be, FormatId::fp16, std::vector<float>(4, 1.0f));
        Tensor m = be.allocate(wa.shape(), FormatId::fp32);
        Tensor v = be.allocate(wa.shape(), FormatId::fp32);
        const UpdateCount ca = be.adamw_update(wa, make(be, FormatId::fp32, {0.1f, -2.0f, 5.0f, 1e-3f}), m, v,
                                               {.lr = lr, .step = 1});
        EXPECT_EQ(ca.nonzero, 4) << lr;
        EXPECT_EQ(ca.lost, lost) << lr;
    }
}

TEST(CpuOptimOps, LostUpdateFractionOverManyElements) {
    CpuBackend be;
    // lr * g spans 1e-5 .. 1e-3 on weights of 1: exactly those below 2^-12 are lost.
    const std::size_t n = 1000;
    std::vector<float> grad(n);
    std::int64_t want_lost = 0;
    for (std::size_t i = 0; i < n; ++i) {
        grad[i] = 1e-5f + 1e-6f * static_cast<float>(i);
        // Rounds back to 1; the tie 1 - 2^-12 goes to 1 too (even significand).
        if (1.0f - grad[i] >= 1.0f - 0x1p-12f) ++want_lost;
    }
    Tensor w = make(be, FormatId::fp16, std::vector<float>(n, 1.0f));
    Tensor none;
    const UpdateCount c = be.sgd_update(w, make(be, FormatId::fp32, grad), none, {.lr = 1.0f});
    EXPECT_EQ(c.nonzero, static_cast<std::int64_t>(n));
    EXPECT_EQ(c.lost, want_lost);
    EXPECT_GT(want_lost, 200);
    EXPECT_LT(want_lost, 300);
}

TEST(CpuOptimOps, UpdatesRejectMismatchedTensors) {
    CpuBackend be;
    Tensor w = be.allocate({2, 3}, FormatId::fp32);
    const Tensor g = be.allocate({3, 2}, FormatId::fp32);
    const Tensor g16 = be.allocate({2, 3}, FormatId::fp16);
    Tensor v = be.allocate({2, 3}, FormatId::fp32);
    Tensor m = be.allocate({2, 3}, FormatId::fp32);
    Tensor none;
    EXPECT_THROW(be.sgd_update(w, g, v, {}), Error);
    EXPECT_THROW(be.sgd_update(w, g16, v, {}), Error);
    EXPECT_THROW(be.sgd_update(w, be.allocate({2, 3}, FormatId::fp32), none, {.momentum = 0.9f}), Error);
    EXPECT_THROW(be.adamw_update(w, g, m, v, {}), Error);
    EXPECT_THROW(be.adamw_update(w, be.allocate({2, 3}, FormatId::fp32), m, v, {.step = 0}), Error);
}

}  // namespace
}  // namespace plab

namespace plab {
namespace {

// The automatic way is a measurement, made once: what it settles on is one
// of the two real ways, and stays until set again.
TEST(SubnormalArithmetic, AutomaticSettlesOnARealWay) {
    cpu::set_subnormal_arithmetic(cpu::SubnormalArithmetic::automatic);
    const cpu::SubnormalArithmetic first = cpu::subnormal_arithmetic();
    EXPECT_NE(first, cpu::SubnormalArithmetic::automatic);
    EXPECT_EQ(first == cpu::SubnormalArithmetic::exact_lanes, cpu::subnormals_are_slow() ||
                                                                  first == cpu::SubnormalArithmetic::exact_lanes);
    EXPECT_EQ(cpu::subnormal_arithmetic(), first);
    cpu::set_subnormal_arithmetic(cpu::SubnormalArithmetic::hardware);
    EXPECT_EQ(cpu::subnormal_arithmetic(), cpu::SubnormalArithmetic::hardware);
    EXPECT_STREQ(cpu::subnormal_arithmetic_name(cpu::SubnormalArithmetic::exact_lanes), "exact-lanes");
    cpu::set_subnormal_arithmetic(cpu::SubnormalArithmetic::automatic);
}

}  // namespace
}  // namespace plab
