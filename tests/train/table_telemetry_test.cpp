// The embedding tables as telemetry layers (engine/model/telemetry_layers.h):
// after the matmul layers the records carry wpe, with the statistics,
// histograms, twin view and twin comparison of its weight and gradient,
// checked against the tensors themselves: counts by the lab's one cast
// routine, bins by a slow log2, distances in FP64.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/model/tiny_gpt.h"
#include "tests/train/trainer_test_util.h"

namespace {

using namespace plab;
using namespace plab::trainer_test;

// The scenario's run at a loss scale of 2^-12, so that from the first steps
// some of wpe's gradient values, times the scale, lie below FP16's reach.
constexpr int kSteps = 2;
constexpr float kScale = 0x1p-12f;

struct Trained {
    CpuBackend backend;
    Trainer trainer;
    StepRecord last;
    explicit Trained(const std::vector<std::string>& settings)
        : trainer(backend, preset_with("tiny-gpt-embedding-underflow", settings)) {
        for (int i = 0; i < kSteps; ++i) last = trainer.step();
    }
    const TinyGpt& mixed() const { return dynamic_cast<const TinyGpt&>(trainer.network()); }
    const TinyGpt& twin() const { return dynamic_cast<const TinyGpt&>(*trainer.twin_network()); }
};

Trained& scenario_run() {
    static Trained run({"telemetry.hist_every=" + std::to_string(kSteps), "scaler.kind=static",
                        "scaler.init_scale=0.000244140625"});
    return run;
}

// Bin of |x| by FP64's log2, clamped at both ends: independent of the
// engine's bit-pattern thresholds (histogram_slot.h).
Log2Histogram slow_histogram(const std::vector<float>& x) {
    Log2Histogram h;
    for (float v : x) {
        if (v == 0.0f) {
            ++h.zeros;
            continue;
        }
        const double bin = std::floor((std::log2(std::fabs(static_cast<double>(v))) - Log2Histogram::kLowExponent) *
                                      Log2Histogram::kBinsPerBinade);
        ++h.bins[static_cast<std::size_t>(std::clamp(bin, 0.0, Log2Histogram::kBins - 1.0))];
    }
    return h;
}

void expect_same_histogram(const Log2Histogram& got, const Log2Histogram& want) {
    EXPECT_EQ(got.zeros, want.zeros);
    for (std::size_t b = 0; b < got.bins.size(); ++b) ASSERT_EQ(got.bins[b], want.bins[b]) << "bin " << b;
}

std::int64_t zeros_of(const std::vector<float>& x) { return std::count(x.begin(), x.end(), 0.0f); }

TEST(TableTelemetry, WpeFollowsTheMatmulLayers) {
    Trained& run = scenario_run();
    const int matmuls = run.mixed().layer_count();
    ASSERT_EQ(run.last.layers.size(), static_cast<std::size_t>(matmuls + 1));
    ASSERT_NE(run.last.histograms, nullptr);
    EXPECT_EQ(run.last.histograms->size(), static_cast<std::size_t>(matmuls + 1));
    ASSERT_NE(run.last.twin_view, nullptr);
    EXPECT_EQ(run.last.twin_view->layers.size(), static_cast<std::size_t>(matmuls + 1));
}

// The run holds wpe's gradient in FP16, times the scale: what FP16 flushed is
// a zero there; the twin's view counts the same values before the flush.
TEST(TableTelemetry, WpeGradientCountsAreTheTensorsOwn) {
    Trained& run = scenario_run();
    ASSERT_EQ(run.last.scale, kScale);
    const LayerRecord& wpe = run.last.layers.back();
    const std::vector<float> grad = host_values(run.backend, run.mixed().position_embedding().grad);
    ASSERT_EQ(wpe.grad.count, static_cast<std::int64_t>(grad.size()));
    EXPECT_EQ(wpe.grad.zeros, zeros_of(grad));
    ASSERT_GT(zeros_of(grad), 0) << "the test needs gradient values FP16 flushed";
    expect_same_histogram(run.last.histograms->back().grad, slow_histogram(grad));
    std::vector<float> unscaled = grad;
    for (float& v : unscaled) v /= kScale;  // exact: a power of two within FP32's range
    ASSERT_EQ(wpe.grad_unscaled.count, wpe.grad.count);
    expect_same_histogram(run.last.histograms->back().grad_unscaled, slow_histogram(unscaled));

    const std::vector<float> twin = host_values(run.backend, run.twin().position_embedding().grad);
    const FlushCount truth = fp16_flushes(twin, kScale);
    ASSERT_GT(truth.flushed, 0) << "the test needs a twin gradient below FP16's reach";
    const LayerRecord& twin_wpe = run.last.twin_view->layers.back();
    ASSERT_EQ(twin_wpe.grad.count, static_cast<std::int64_t>(twin.size()));
    EXPECT_EQ(fp16_underflow_count(twin_wpe.grad), truth.flushed);
    EXPECT_EQ(fp16_underflow_count(twin_wpe.grad_unscaled), fp16_flushes(twin, 1.0f).flushed);
    EXPECT_EQ(twin_wpe.grad_unscaled.count - twin_wpe.grad_unscaled.zeros, truth.nonzero);
    expect_same_histogram(run.last.twin_view->histograms.back().grad_unscaled, slow_histogram(twin));
}

TEST(TableTelemetry, WpeWeightsAndDivergenceAreTheTensorsOwn) {
    Trained& run = scenario_run();
    const LayerRecord& wpe = run.last.layers.back();
    const std::vector<float> weights = host_values(run.backend, run.mixed().position_embedding().value);
    ASSERT_EQ(wpe.weight.count, static_cast<std::int64_t>(weights.size()));
    float amax = 0;
    for (float v : weights) amax = std::max(amax, std::fabs(v));
    EXPECT_EQ(wpe.weight.amax, amax);
    expect_same_histogram(run.last.histograms->back().weight, slow_histogram(weights));

    // ||a - b|| / ||b|| of the unscaled gradients, in FP64; the record keeps
    // it in FP32, so they agree to FP32's half ulp, 2^-24 relative.
    const std::vector<float> a = host_values(run.backend, run.mixed().position_embedding().master_grad);
    const std::vector<float> b = host_values(run.backend, run.twin().position_embedding().master_grad);
    double diff = 0, ref = 0;
    for (std::size_t i = 0; i < a.size(); ++i) {
        diff += (static_cast<double>(a[i]) - b[i]) * (static_cast<double>(a[i]) - b[i]);
        ref += static_cast<double>(b[i]) * b[i];
    }
    const double want = std::sqrt(diff / ref);
    ASSERT_GT(want, 0);
    EXPECT_NEAR(wpe.grad_rel_dist, want, want * 0x1p-23);
}

// A table is looked up, not multiplied: no activation to count.
TEST(TableTelemetry, WpeHasNoActivation) {
    Trained& run = scenario_run();
    const LayerRecord& wpe = run.last.layers.back();
    EXPECT_EQ(wpe.act.count, 0);
    EXPECT_EQ(wpe.act_grad.count, 0);
    EXPECT_EQ(wpe.act_grad_unscaled.count, 0);
    const LayerHistograms& h = run.last.histograms->back();
    EXPECT_EQ(h.act.zeros, 0);
    EXPECT_EQ(*std::max_element(h.act_grad.bins.begin(), h.act_grad.bins.end()), 0u);
    EXPECT_EQ(run.last.twin_view->layers.back().act.count, 0);
}

}  // namespace
