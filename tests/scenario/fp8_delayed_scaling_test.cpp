// fp8-delayed-scaling: unscaled, E5M2 flushes most true gradients; with
// delayed scaling the cast flushes a small tail only and the run tracks its
// twin. The numbers are measured again here from plain Trainer runs: the
// twin's gradients directly, the cast's view from the FP8 records.
#include "scenario/scenario_test_util.h"

#include <cmath>

#include "engine/scenario/scenario_checks.h"

namespace plab {
namespace {

constexpr std::size_t kE5m2 = 3;  // kRangeFormats: fp16, bf16, e4m3, e5m2
static_assert(kRangeFormats[kE5m2] == FormatId::e5m2);

// Of the non-zero values some statistics describe, the fraction that flush to zero in E5M2.
struct Pooled {
    double flushed = 0, nonzero = 0;
    void add(const TensorStats& s) {
        flushed += static_cast<double>(s.ranges[kE5m2].underflow) * static_cast<double>(s.count);
        nonzero += static_cast<double>(s.count - s.zeros);
    }
    double fraction() const { return flushed / nonzero; }
};

struct Measured {
    Pooled true_grads;  // the twin's activation gradients (training steps)
    Pooled cast;        // what the run's E5M2 cast saw
    StepRecord last;
};

Measured run_and_measure(const std::vector<std::string>& settings) {
    RunConfig config = load_preset("fp8-delayed-scaling");
    apply_settings(config, settings);
    CpuBackend backend;
    Trainer trainer(backend, config);
    Measured m;
    for (int i = 0; i < config.steps; ++i) {
        m.last = trainer.step();
        for (const LayerRecord& l : m.last.layers) m.cast.add(l.fp8.value().grad_scaled);
        if (m.last.acc) continue;  // evaluation ran the test set through the twin
        for (int layer = 0; layer < trainer.twin()->layer_count(); ++layer)
            m.true_grads.add(backend.tensor_stats(trainer.twin()->activation_grad(layer), 1.0));
    }
    return m;
}

TEST(ScenarioFp8DelayedScaling, VerdictsHold) {
    CpuBackend backend;
    scenario_test::expect_all_hold(check_fp8_delayed_scaling(backend, {}), "fp8-delayed-scaling");
}

TEST(ScenarioFp8DelayedScaling, RecordsShowTheFlushAndTheGap) {
    const Measured none = run_and_measure({"precision.fp8_scaling=none", "telemetry.hist_every=0"});
    const Measured delayed = run_and_measure({"telemetry.hist_every=0"});
    const double gap = static_cast<double>(*delayed.last.acc_ref - *delayed.last.acc);
    std::printf("[ measured ] true grads flushing in E5M2: %.4f; the cast flushes %.4f unscaled, %.5f delayed; "
                "accuracy: unscaled %.4f, delayed %.4f, twin %.4f (gap %.4f)\n",
                none.true_grads.fraction(), none.cast.fraction(), delayed.cast.fraction(),
                static_cast<double>(*none.last.acc), static_cast<double>(*delayed.last.acc),
                static_cast<double>(*delayed.last.acc_ref), gap);
    EXPECT_GE(none.true_grads.fraction(), 0.5);
    EXPECT_GE(none.cast.fraction(), 4.0 * delayed.cast.fraction());
    EXPECT_LE(std::fabs(gap), 0.01);
    // Unscaled, the cast sees the held gradient itself: every grad scale is 1.
    for (const LayerRecord& l : none.last.layers) EXPECT_EQ(l.fp8->scales.grad, 1.0f);
    for (const LayerRecord& l : delayed.last.layers) EXPECT_GE(l.fp8->scales.grad, 1024.0f);
    // Both twins are the same FP32 run.
    EXPECT_EQ(*none.last.acc_ref, *delayed.last.acc_ref);
}

}  // namespace
}  // namespace plab
