// Runs trained side by side give each run's own numbers: the sweep's
// measures and every record it hands out equal those of the same configs
// trained one after another here, with the counts taken by this test.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/backend/cpu/parallel_slices.h"
#include "engine/common/error.h"
#include "engine/sweep/sweep_runner.h"
#include "engine/train/trainer.h"

namespace plab {
namespace {

SweepPlan small_plan() {
    RunConfig base = load_preset("spirals-amp-fp16");
    return plan_sweep(base, {{}, 60, {}, {}},
                      {parse_sweep_axis("scaler.init_scale=2^16,2^24"), parse_sweep_axis("scaler.growth_interval=5,20")},
                      {1, 2});
}

TEST(SweepRunner, EachRunAsIfTrainedAlone) {
    const SweepPlan plan = small_plan();
    std::vector<std::vector<float>> losses(plan.runs.size());
    SweepRunOptions options;
    options.threads = 3;
    options.backend = "cpu";  // the sweep's runs are the CPU backend's that this test trains below
    options.observer.step = [&](std::size_t run, const StepRecord& r) { losses[run].push_back(r.loss); };
    const std::optional<std::vector<RunMeasures>> measures = run_sweep(plan, options);
    ASSERT_TRUE(measures);
    ASSERT_EQ(measures->size(), 8u);
    for (std::size_t i = 0; i < plan.runs.size(); ++i) {
        CpuBackend backend;
        Trainer trainer(backend, plan.runs[i].config);
        std::int64_t skipped = 0, first_growth = 0;
        std::vector<float> alone;
        StepRecord r;
        for (int s = 0; s < plan.runs[i].config.steps; ++s) {
            r = trainer.step();
            skipped += r.skipped;
            if (r.growth && first_growth == 0) first_growth = r.step;
            alone.push_back(r.loss);
        }
        const RunMeasures& m = (*measures)[i];
        EXPECT_EQ(losses[i], alone) << "run " << i;
        EXPECT_EQ(m.skipped, skipped) << "run " << i;
        EXPECT_EQ(m.first_growth_step.value_or(0), first_growth) << "run " << i;
        EXPECT_EQ(m.final_loss, r.loss);
        EXPECT_EQ(m.acc, r.acc);
    }
    // The grid is chosen so the runs differ: 2^24 overflows at once and backs off.
    EXPECT_GT((*measures)[4].skipped, 0);
    EXPECT_EQ((*measures)[0].first_growth_step, 5);
}

// Each run's measures reach the observer when that run ends, equal to the
// ones the sweep returns at the end.
TEST(SweepRunner, EachRunsMeasuresComeAsItFinishes) {
    const SweepPlan plan = small_plan();
    std::vector<std::optional<RunMeasures>> seen(plan.runs.size());
    std::mutex mutex;
    SweepRunOptions options;
    options.threads = 2;
    options.observer.finished = [&](std::size_t run, const RunMeasures& m) {
        const std::lock_guard lock(mutex);
        EXPECT_FALSE(seen[run]) << "run " << run << " reported twice";
        seen[run] = m;
    };
    const std::optional<std::vector<RunMeasures>> measures = run_sweep(plan, options);
    ASSERT_TRUE(measures);
    for (std::size_t i = 0; i < plan.runs.size(); ++i) {
        ASSERT_TRUE(seen[i]) << "run " << i;
        EXPECT_EQ(seen[i]->skipped, (*measures)[i].skipped) << "run " << i;
        EXPECT_EQ(seen[i]->final_loss, (*measures)[i].final_loss) << "run " << i;
        EXPECT_EQ(seen[i]->steps, plan.runs[i].config.steps) << "run " << i;
    }
}

TEST(SweepRunner, AnObserversErrorStopsTheSweepAndComesBack) {
    const SweepPlan plan = small_plan();
    SweepRunOptions options;
    options.observer.step = [](std::size_t run, const StepRecord& r) {
        if (run == 1 && r.step == 3) throw Error("disk full");
    };
    EXPECT_THROW(run_sweep(plan, options), Error);
}

// A backend the sweep cannot train on is found before any run starts, with
// the message plab run gives (this test binary registers no CUDA backend).
TEST(SweepRunner, ABackendItCannotUseIsRefusedBeforeAnyRun) {
    const SweepPlan plan = small_plan();
    std::atomic<int> started{0};
    SweepRunOptions options;
    options.observer.started = [&](std::size_t, const Trainer&, const Backend&) { ++started; };
    const auto message = [&](const std::string& backend) {
        options.backend = backend;
        try {
            run_sweep(plan, options);
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(message("gpu"), "--backend: 'gpu' is not a backend; allowed: auto|cpu|cuda");
    EXPECT_EQ(message("cuda"), "this build has no CUDA backend; use --backend cpu");
    EXPECT_EQ(started.load(), 0);
}

// Workers: one per core on the CPU; on a GPU, whose runs mostly wait for
// their streams, at least kCudaSweepStreams; never more than the runs, and
// --threads as asked.
TEST(SweepRunner, WorkersFollowTheDevice) {
    const std::size_t cores = cpu::usable_cores();
    EXPECT_EQ(sweep_threads(1000, 0, Device::cpu), cores);
    EXPECT_EQ(sweep_threads(1000, 0, Device::cuda), std::max<std::size_t>(cores, 4));
    EXPECT_EQ(sweep_threads(3, 0, Device::cuda), 3u);
    EXPECT_EQ(sweep_threads(1000, 2, Device::cuda), 2u);
    EXPECT_EQ(sweep_threads(1000, 7, Device::cpu), 7u);
}

TEST(SweepRunner, StopEndsItEarly) {
    const SweepPlan plan = small_plan();
    SweepRunOptions options;
    options.stop = [] { return true; };
    EXPECT_FALSE(run_sweep(plan, options));
}

}  // namespace
}  // namespace plab
