// The FP32 twin's statistics and histograms on histogram steps (TwinView):
// its gradients as they are and times the run's loss scale, checked against
// the twin's tensors cast one by one with the lab's cast routine.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/train/trainer_test_util.h"

namespace {

using namespace plab;
using namespace plab::trainer_test;

// The trainer's next step, which must carry the twin's view.
StepRecord first_step(Trainer& trainer) {
    StepRecord r = trainer.step();
    EXPECT_NE(r.twin_view, nullptr);
    return r;
}

RunConfig every_step_histograms(std::string_view preset) { return preset_with(preset, {"telemetry.hist_every=1"}); }

TEST(TwinView, OnlyHistogramStepsWithATwinCarryIt) {
    CpuBackend backend;
    Trainer with_twin(backend, preset_with("spirals-amp-fp16", {"telemetry.hist_every=2"}));
    EXPECT_EQ(with_twin.step().twin_view, nullptr);  // step 1 takes no histograms
    const StepRecord second = with_twin.step();
    ASSERT_NE(second.histograms, nullptr);
    ASSERT_NE(second.twin_view, nullptr);
    EXPECT_EQ(second.twin_view->layers.size(), second.layers.size());
    EXPECT_EQ(second.twin_view->histograms.size(), second.histograms->size());

    Trainer alone(backend, preset_with("spirals-amp-fp16", {"telemetry.hist_every=1", "twin=false"}));
    const StepRecord first = alone.step();
    EXPECT_NE(first.histograms, nullptr);
    EXPECT_EQ(first.twin_view, nullptr);
}

// With S = 2^16 the scaled view is the twin's gradient times S: FP16's flush
// count there is what the cast of x * S says, and its histogram is the
// unscaled one moved 16 binades (64 bins) right.
TEST(TwinView, ScaledViewIsTheTwinsGradientTimesTheLossScale) {
    CpuBackend backend;
    Trainer trainer(backend, every_step_histograms("spirals-amp-fp16"));
    const StepRecord r = first_step(trainer);
    ASSERT_EQ(r.scale, 65536.0f);
    ASSERT_NE(r.twin_view, nullptr);
    const Model& twin = *trainer.twin_network();
    for (int i = 0; i < twin.layer_count(); ++i) {
        SCOPED_TRACE("layer " + std::to_string(i));
        const auto l = static_cast<std::size_t>(i);
        const std::vector<float> grad = host_values(backend, twin.layer_weight(i).grad);
        const LayerRecord& stats = r.twin_view->layers[l];
        ASSERT_EQ(stats.grad.count, static_cast<std::int64_t>(grad.size()));
        ASSERT_EQ(stats.grad_unscaled.count, static_cast<std::int64_t>(grad.size()));
        EXPECT_EQ(fp16_underflow_count(stats.grad), fp16_flushes(grad, r.scale).flushed);
        EXPECT_EQ(fp16_underflow_count(stats.grad_unscaled), fp16_flushes(grad, 1.0f).flushed);
        const LayerHistograms& h = r.twin_view->histograms[l];
        constexpr int kShift = 16 * Log2Histogram::kBinsPerBinade;
        for (int b = 1; b + kShift < Log2Histogram::kBins - 1; ++b)
            ASSERT_EQ(h.grad.bins[static_cast<std::size_t>(b + kShift)], h.grad_unscaled.bins[static_cast<std::size_t>(b)])
                << "bin " << b;
        EXPECT_EQ(h.grad.zeros, h.grad_unscaled.zeros);
    }
}

// Without a loss scale, FP16 holds every weight gradient of fc1 as zero: the
// run's own counters say "100% zero, 0% underflow", and only the twin shows
// what was lost, its true gradients, flushed to the last one.
TEST(TwinView, ShowsWhatTheRunsZerosHide) {
    CpuBackend backend;
    Trainer trainer(backend, every_step_histograms("underflow-no-scaling"));
    const StepRecord r = first_step(trainer);
    ASSERT_EQ(r.scale, 1.0f);
    ASSERT_NE(r.twin_view, nullptr);
    const TensorStats& run = r.layers[0].grad;
    EXPECT_EQ(run.zeros, run.count);
    EXPECT_EQ(run.ranges[0].underflow, 0.0f);
    const std::vector<float> grad = host_values(backend, trainer.twin_network()->layer_weight(0).grad);
    const FlushCount truth = fp16_flushes(grad, 1.0f);
    ASSERT_GT(truth.nonzero, 0);
    EXPECT_EQ(truth.flushed, truth.nonzero);
    const TensorStats& twin = r.twin_view->layers[0].grad;
    EXPECT_EQ(fp16_underflow_count(twin), truth.flushed);
    EXPECT_EQ(twin.count - twin.zeros, truth.nonzero);
}

}  // namespace
