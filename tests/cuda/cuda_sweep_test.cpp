// A sweep on the GPU: its runs train at once, one CUDA stream each, from
// several host threads on the one device. A run on the CUDA backend is
// deterministic, so each must give, step for step, exactly what the same run
// gives trained alone on the device afterwards. State the CudaBackend
// instances shared unguarded (a cache, a scratch buffer, a handle, a global
// capture mode breaking another thread's capture) would show here as a
// differing loss, scale or measure.
#include <gtest/gtest.h>

#include <mutex>
#include <string>
#include <vector>

#include "engine/amp/precision_policy.h"
#include "engine/sweep/sweep_runner.h"
#include "engine/train/preset_io.h"
#include "engine/train/trainer.h"
#include "kernels/cuda_backend.h"
#include "kernels/cuda_backend_factory.h"
#include "kernels/device_info.h"

namespace plab {
namespace {

// What this test compares of every step.
struct Trace {
    std::vector<float> loss, scale;
    std::vector<bool> skipped;
    bool operator==(const Trace&) const = default;
};

void note(Trace& t, const StepRecord& r) {
    t.loss.push_back(r.loss);
    t.scale.push_back(r.scale);
    t.skipped.push_back(r.skipped);
}

// The run alone on a CUDA backend of its own, no other run on the device.
RunMeasures train_alone(const RunConfig& config, Trace& trace) {
    CudaBackend gpu;
    Trainer trainer(gpu, config);
    RunMeter meter(config.scaler, mixed_pass_formats(config.precision, trainer.layer_names()).layer_compute);
    for (int i = 0; i < config.steps; ++i) {
        const StepRecord r = trainer.step();
        meter.add(r);
        note(trace, r);
    }
    return meter.result();
}

// Trains `plan` as a sweep on the GPU, `threads` runs at once, then each run
// alone; every step's loss, scale and skip and every measure must agree.
void expect_each_run_as_alone(const SweepPlan& plan, std::size_t threads) {
    set_cuda_backend_factory(cuda_backend_factory());
    std::vector<Trace> traced(plan.runs.size());
    std::mutex started_mutex;
    std::vector<std::string> backends;
    SweepRunOptions options;
    options.backend = "cuda";
    options.threads = threads;
    options.observer.started = [&](std::size_t, const Trainer&, const Backend& b) {
        const std::lock_guard lock(started_mutex);
        backends.push_back(b.name());
    };
    options.observer.step = [&](std::size_t run, const StepRecord& r) { note(traced[run], r); };
    const std::optional<std::vector<RunMeasures>> measures = run_sweep(plan, options);
    ASSERT_TRUE(measures);
    ASSERT_EQ(backends.size(), plan.runs.size());
    for (const std::string& name : backends) EXPECT_NE(name, "CPU (exact emulation)");
    for (std::size_t i = 0; i < plan.runs.size(); ++i) {
        SCOPED_TRACE("run " + std::to_string(i));
        Trace alone;
        const RunMeasures m = train_alone(plan.runs[i].config, alone);
        const RunMeasures& s = (*measures)[i];
        EXPECT_TRUE(traced[i] == alone) << "a step's loss, scale or skip differs from the run trained alone";
        EXPECT_EQ(s.steps, m.steps);
        EXPECT_EQ(s.skipped, m.skipped);
        EXPECT_EQ(s.floor_steps, m.floor_steps);
        EXPECT_EQ(s.ceiling_steps, m.ceiling_steps);
        EXPECT_EQ(s.grad_zero_share, m.grad_zero_share);
        EXPECT_EQ(s.twin_flush_share, m.twin_flush_share);
        EXPECT_EQ(s.final_loss, m.final_loss);
        EXPECT_EQ(s.acc, m.acc);
        EXPECT_EQ(s.acc_ref, m.acc_ref);
        EXPECT_EQ(s.test_loss, m.test_loss);
        EXPECT_EQ(s.first_growth_step, m.first_growth_step);
    }
}

SweepPlan default_preset_grid(int steps, const std::vector<std::string>& axes) {
    std::vector<SweepAxis> parsed;
    for (const std::string& a : axes) parsed.push_back(parse_sweep_axis(a));
    return plan_sweep(load_preset("spirals-amp-fp16"), {{}, steps, {}, {}}, parsed, {});
}

// 2 x 2 cells of the default preset, all four at once: 2^24 overflows at the
// start and backs off, interval 10 grows and overflows again, so the runs
// differ in skips and growths (a run handed another's stream would show).
TEST(CudaSweep, ConcurrentRunsGiveEachRunsOwnNumbers) {
    if (!cuda_device_present()) GTEST_SKIP() << cuda::describe_devices();
    const SweepPlan plan = default_preset_grid(300, {"scaler.init_scale=2^16,2^24", "scaler.growth_interval=10,300"});
    ASSERT_EQ(plan.runs.size(), 4u);
    expect_each_run_as_alone(plan, 4);
}

// Two runs for six steps: through each run's first step (allocations), its
// capture of a step graph and the replays, with the other run allocating,
// capturing or freeing at the same time; short enough for compute-sanitizer
// (tools/gpu-check's memcheck), which sees a kernel reach memory another
// backend freed.
TEST(CudaSweep, TwoRunsCapturingAtOnceBriefly) {
    if (!cuda_device_present()) GTEST_SKIP() << cuda::describe_devices();
    expect_each_run_as_alone(default_preset_grid(6, {"scaler.init_scale=2^16,2^24"}), 2);
}

}  // namespace
}  // namespace plab
