// A whole training run on the CUDA backend against the same run on the CPU:
// the default preset, FP32 twin and telemetry on, 500 steps. Its GEMMs take
// the fixed-order route and its softmax the shared exp and log, and every
// other op that feeds the next step (elementwise, column sums, unscale, the
// scaler, AdamW) runs the CPU's formula in the CPU's order: so the weights
// after every step are the CPU's bit for bit, and the loss scaler's decisions
// (found_inf, skips, the scale before and after) are the same. The reported
// loss is the mean of the same row terms summed in another order: within the
// summation bound 2 n u of the CPU's. The default preset never overflows, so
// the scaler sawtooth (overflows, backoffs, growths) is run as well, and
// every shipped preset takes a few steps (each op reached).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <iostream>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/train/preset_io.h"
#include "engine/train/trainer.h"
#include "kernels/cuda_backend.h"
#include "kernels/device_info.h"
#include "tests/train/trainer_test_util.h"

namespace plab {
namespace {

double relative_difference(double a, double b) { return std::fabs(a - b) / std::max(std::fabs(a), 1e-30); }

// A mean of n non-negative row terms summed in two orders: 2 n u relative.
double loss_bound(int rows) { return 2.0 * rows * 0x1p-24; }

// Every weight and bias of the two models, as the optimizer holds them.
void expect_same_weights(Backend& cpu, const Mlp& on_cpu, Backend& gpu, const Mlp& on_gpu, int step) {
    ASSERT_EQ(on_cpu.linears().size(), on_gpu.linears().size());
    for (std::size_t l = 0; l < on_cpu.linears().size(); ++l) {
        for (int which = 0; which < 2; ++which) {
            const Linear& lc = on_cpu.linears()[l];
            const Linear& lg = on_gpu.linears()[l];
            const Tensor& c = which ? lc.bias.target() : lc.weight.target();
            const Tensor& g = which ? lg.bias.target() : lg.weight.target();
            std::vector<float> cv(c.size()), gv(g.size());
            cpu.download(c, cv.data());
            gpu.download(g, gv.data());
            ASSERT_EQ(0, std::memcmp(cv.data(), gv.data(), cv.size() * sizeof(float)))
                << lc.name() << (which ? ".bias" : ".weight") << " differs after step " << step;
        }
    }
}

// Elements a histogram counted, whatever their bins.
std::int64_t counted(const Log2Histogram& h) {
    std::int64_t n = h.zeros + h.nans + h.pos_infs + h.neg_infs;
    for (std::uint32_t b : h.bins) n += b;
    return n;
}

TEST(CudaTrainer, DefaultPresetTracksTheCpuFor500Steps) {
    if (!cuda_device_present()) GTEST_SKIP() << cuda::describe_devices();
    RunConfig config = load_preset("spirals-amp-fp16");
    config.steps = 500;
    ASSERT_TRUE(config.twin);
    ASSERT_TRUE(config.telemetry.enabled);
    ASSERT_GT(config.telemetry.hist_every, 0);

    CpuBackend cpu;
    CudaBackend gpu;
    Trainer on_cpu(cpu, config);
    Trainer on_gpu(gpu, config);
    double worst_loss = 0, worst_twin = 0;
    int histogram_steps = 0;
    for (int i = 0; i < config.steps; ++i) {
        const StepRecord c = on_cpu.step();
        const StepRecord g = on_gpu.step();
        ASSERT_EQ(g.step, c.step);
        ASSERT_EQ(g.found_inf, c.found_inf) << "step " << c.step;
        ASSERT_EQ(g.skipped, c.skipped) << "step " << c.step;
        ASSERT_EQ(g.scale, c.scale) << "step " << c.step;
        ASSERT_EQ(g.scale_after, c.scale_after) << "step " << c.step;
        ASSERT_EQ(g.growth_tracker, c.growth_tracker) << "step " << c.step;
        ASSERT_EQ(g.acc, c.acc) << "step " << c.step;  // the same forward on the test set
        worst_loss = std::max(worst_loss, relative_difference(g.loss, c.loss));
        worst_twin = std::max(worst_twin, relative_difference(g.loss_ref, c.loss_ref));
        ASSERT_LE(relative_difference(g.loss, c.loss), loss_bound(config.batch_size))
                << "step " << c.step << ": cpu " << c.loss << " gpu " << g.loss;
        ASSERT_LE(relative_difference(g.loss_ref, c.loss_ref), loss_bound(config.batch_size))
                << "twin, step " << c.step << ": cpu " << c.loss_ref << " gpu " << g.loss_ref;
        if (c.step % 50 == 0 || c.step == config.steps) {
            expect_same_weights(cpu, on_cpu.model(), gpu, on_gpu.model(), c.step);
            ASSERT_NE(on_cpu.twin(), nullptr);
            expect_same_weights(cpu, *on_cpu.twin(), gpu, *on_gpu.twin(), c.step);
            if (HasFatalFailure()) return;
        }
        // Telemetry ran on the device's tensors: the same layers, every element counted.
        ASSERT_EQ(g.layers.size(), c.layers.size());
        ASSERT_EQ(on_gpu.has_histograms(), on_cpu.has_histograms());
        if (on_cpu.has_histograms()) {
            ++histogram_steps;
            const auto& hc = on_cpu.histograms();
            const auto& hg = on_gpu.histograms();
            ASSERT_EQ(hg.size(), hc.size());
            for (std::size_t l = 0; l < hc.size(); ++l) {
                EXPECT_EQ(counted(hg[l].weight), counted(hc[l].weight)) << "layer " << l;
                EXPECT_EQ(counted(hg[l].grad), counted(hc[l].grad)) << "layer " << l;
            }
        }
    }
    EXPECT_GT(histogram_steps, 0);
    std::cout << "[          ] worst relative loss difference over " << config.steps << " steps: " << worst_loss
              << " (twin " << worst_twin << ")\n";
}

// The step keeps its decisions on the device (unscale, scaler rule, clip,
// skip, update, loss, twin comparison, telemetry) and its batch goes up
// through pinned staging: past the first steps (which size the scratch and
// the result slots), a step waits for the device once, at its finish.
TEST(CudaTrainer, ADefaultPresetStepWaitsForTheDeviceOnce) {
    if (!cuda_device_present()) GTEST_SKIP() << cuda::describe_devices();
    RunConfig config = load_preset("spirals-amp-fp16");
    ASSERT_EQ(config.eval_every, 100);
    ASSERT_EQ(config.telemetry.hist_every, 10);
    CudaBackend gpu;
    Trainer trainer(gpu, config);
    for (int i = 0; i < 11; ++i) trainer.step();  // through the first histogram step
    const std::uint64_t before = cuda_host_waits();
    for (int i = 0; i < 20; ++i) trainer.step();  // steps 12..31: two histogram steps, no evaluation
    EXPECT_EQ(cuda_host_waits() - before, 20u);
    EXPECT_GE(trainer.step_graph_counts().replayed, 25) << "past the first, the steps replay a captured graph";
}

// Steps replayed from a captured CUDA graph give the records of the same run
// stepped op by op on the device, bit for bit (the same kernels in the same
// order; only the launches differ), through histogram steps, evaluations,
// growths and overflow skips (the sawtooth), and live edits at step 150 of
// the settings a replay reads on the device (lr, weight decay, a clip, the
// scaler's growth interval: the next step grows the scale from a graph
// captured before the edit).
TEST(CudaTrainer, CapturedStepsReplayWithTheRecordsOfOpByOpSteps) {
    if (!cuda_device_present()) GTEST_SKIP() << cuda::describe_devices();
    for (const char* preset : {"spirals-amp-fp16", "scaler-sawtooth"}) {
        SCOPED_TRACE(preset);
        RunConfig config = load_preset(preset);
        config.steps = 250;
        config.optimizer.clip_norm = 5.0f;
        CudaBackend gpu;
        TrainerOptions op_by_op;
        op_by_op.step_graphs = false;
        Trainer replayed(gpu, config), stepped(gpu, config, op_by_op);
        for (int s = 1; s <= config.steps; ++s) {
            if (s == 150)
                for (const char* edit : {"optimizer.lr=0.004", "optimizer.weight_decay=0.01", "optimizer.clip_norm=0.5",
                                         "scaler.growth_interval=3"}) {
                    replayed.apply(edit);
                    stepped.apply(edit);
                }
            const StepRecord a = replayed.step();
            const StepRecord b = stepped.step();
            ASSERT_EQ(trainer_test::record_difference(a, b), "") << "step " << s;
            ASSERT_EQ(trainer_test::histograms_difference(replayed.histograms(), stepped.histograms()), "")
                << "step " << s;
        }
        const StepGraphCounts& c = replayed.step_graph_counts();
        std::cout << preset << ": " << c.recorded << " graphs captured, " << c.replayed << " of " << config.steps
                  << " steps replayed, " << c.refused << " captures refused\n";
        EXPECT_GT(c.replayed, config.steps / 2);
    }
}

// The sawtooth's overflows, backoffs and growths at the same steps, and the
// same weights at the end: the run is the CPU's, decision for decision.
TEST(CudaTrainer, ScalerSawtoothOverflowsAtTheSameSteps) {
    if (!cuda_device_present()) GTEST_SKIP() << cuda::describe_devices();
    const RunConfig config = load_preset("scaler-sawtooth");
    CpuBackend cpu;
    CudaBackend gpu;
    Trainer on_cpu(cpu, config);
    Trainer on_gpu(gpu, config);
    int overflows = 0, growths = 0;
    for (int i = 0; i < config.steps; ++i) {
        const StepRecord c = on_cpu.step();
        const StepRecord g = on_gpu.step();
        ASSERT_EQ(g.found_inf, c.found_inf) << "step " << c.step;
        ASSERT_EQ(g.scale_after, c.scale_after) << "step " << c.step;
        overflows += c.found_inf;
        growths += c.growth;
    }
    EXPECT_GT(overflows, 0);
    EXPECT_GT(growths, 0);
    expect_same_weights(cpu, on_cpu.model(), gpu, on_gpu.model(), config.steps);
}

// Every shipped preset (attention, LayerNorm, MSE regression, FP8, pure FP16,
// ...) takes five steps on the GPU. The first step starts from the same
// weights and data: its loss is the CPU's up to the ops' rounding (1e-3
// relative), or non-finite on both.
class CudaEveryPreset : public testing::TestWithParam<std::string> {};

TEST_P(CudaEveryPreset, TakesItsFirstStepsLikeTheCpu) {
    if (!cuda_device_present()) GTEST_SKIP() << cuda::describe_devices();
    RunConfig config = load_preset(GetParam());
    config.steps = 5;
    CpuBackend cpu;
    CudaBackend gpu;
    Trainer on_cpu(cpu, config);
    Trainer on_gpu(gpu, config);
    const StepRecord c = on_cpu.step();
    const StepRecord g = on_gpu.step();
    EXPECT_EQ(std::isfinite(g.loss), std::isfinite(c.loss)) << "cpu " << c.loss << " gpu " << g.loss;
    if (std::isfinite(c.loss)) {
        EXPECT_LE(relative_difference(g.loss, c.loss), 1e-3) << c.loss << " vs " << g.loss;
    }
    EXPECT_EQ(g.found_inf, c.found_inf);
    for (int i = 1; i < config.steps; ++i) EXPECT_NO_THROW(on_gpu.step()) << "step " << i + 1;
}

std::vector<std::string> shipped_presets() {
    std::vector<std::string> names;
    for (const PresetInfo& p : list_presets()) names.push_back(p.name);
    return names;
}

std::string preset_test_name(const testing::TestParamInfo<std::string>& info) {
    std::string name = info.param;
    for (char& ch : name)
        if (ch == '-') ch = '_';
    return name;
}

INSTANTIATE_TEST_SUITE_P(Shipped, CudaEveryPreset, testing::ValuesIn(shipped_presets()), preset_test_name);

// Native 16-bit storage changes the bytes, not the values: every op reads the
// value a 16-bit code holds and rounds its output to the dtype with the same
// cast, so a run with FP16 / BF16 tensors in 16 bits writes the very records
// (losses, scales, telemetry, histograms) of the run with every tensor in
// FP32 words. The shipped presets' GEMMs take the fixed-order route, whose
// sums do not depend on the storage.
class CudaNativeStorage : public testing::TestWithParam<std::string> {};

TEST_P(CudaNativeStorage, TrainsTheRecordsOfFp32Storage) {
    if (!cuda_device_present()) GTEST_SKIP() << cuda::describe_devices();
    RunConfig config = load_preset(GetParam());
    config.steps = std::min(config.steps, 40);
    config.telemetry.hist_every = 5;
    CudaBackend native, words;
    words.set_native_16bit(false);
    ASSERT_TRUE(native.native_16bit());
    Trainer a(native, config), b(words, config);
    for (int s = 1; s <= config.steps; ++s) {
        const StepRecord ra = a.step();
        const StepRecord rb = b.step();
        ASSERT_EQ(trainer_test::record_difference(ra, rb), "") << "step " << s;
        ASSERT_EQ(trainer_test::histograms_difference(a.histograms(), b.histograms()), "") << "step " << s;
    }
}

INSTANTIATE_TEST_SUITE_P(Shipped, CudaNativeStorage, testing::ValuesIn(shipped_presets()), preset_test_name);

}  // namespace
}  // namespace plab
