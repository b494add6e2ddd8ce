// The shipped presets must do what their descriptions promise when trained
// end to end: the default one learns the spirals and tracks its FP32 twin,
// the sawtooth one saws, the BF16 and FP32 ones learn, and bf16-precision-cost
// keeps its weights in BF16.
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/backend/cpu/subnormal_arithmetic.h"
#include "engine/numeric/scalar_cast.h"
#include "engine/train/preset_io.h"
#include "engine/train/trainer.h"

namespace plab {
namespace {

// Every record of a preset's full run.
std::vector<StepRecord> train(const RunConfig& config) {
    CpuBackend backend;
    Trainer trainer(backend, config);
    std::vector<StepRecord> records;
    records.reserve(static_cast<std::size_t>(config.steps));
    for (int i = 0; i < config.steps; ++i) records.push_back(trainer.step());
    return records;
}

// The last step is always evaluated.
float final_accuracy(const std::vector<StepRecord>& records) {
    const StepRecord& last = records.back();
    EXPECT_TRUE(last.acc.has_value()) << "step " << last.step << " was not evaluated";
    return last.acc.value_or(0.0f);
}

void print_accuracies(const std::string& preset, const std::vector<StepRecord>& records) {
    const StepRecord& last = records.back();
    std::printf("[ measured ] %s: %zu steps, acc %.4f, acc_ref %.4f\n", preset.c_str(), records.size(),
                static_cast<double>(last.acc.value_or(-1)), static_cast<double>(last.acc_ref.value_or(-1)));
}

TEST(PresetTraining, DefaultAmpFp16PresetLearnsAndTracksItsTwin) {
    const RunConfig config = load_preset("spirals-amp-fp16");
    ASSERT_LE(config.steps, 2000);
    ASSERT_TRUE(config.twin);
    const std::vector<StepRecord> records = train(config);
    print_accuracies(config.name, records);
    ASSERT_TRUE(records.back().acc_ref.has_value());
    EXPECT_GE(final_accuracy(records), 0.90f);
    // It stays within 0.5 points of its twin from the first evaluation at
    // 90% on, not only at the end. On its 307 test points one point is
    // 0.33 of them, so the two may differ by one point at most.
    bool reached = false;
    for (const StepRecord& r : records) {
        if (!r.acc) continue;
        reached = reached || *r.acc >= 0.90f;
        if (reached) {
            EXPECT_NEAR(*r.acc, *r.acc_ref, 0.005f) << "step " << r.step;
        }
    }
    EXPECT_TRUE(reached);
    // Its description promises no overflow: no step is skipped.
    for (const StepRecord& r : records) {
        EXPECT_FALSE(r.skipped) << "step " << r.step;
    }
}

TEST(PresetTraining, SawtoothPresetBacksOffAndGrowsByItsExactFactors) {
    const RunConfig config = load_preset("scaler-sawtooth");
    ASSERT_EQ(config.steps, 600);
    ASSERT_EQ(config.scaler.kind, ScalerKind::dynamic);
    const float backoff = config.scaler.backoff_factor;
    const float growth = config.scaler.growth_factor;
    const std::vector<StepRecord> records = train(config);
    int backoffs = 0, growths = 0;
    for (const StepRecord& r : records) {
        const std::string at = "step " + std::to_string(r.step);
        EXPECT_FALSE(r.backoff && r.growth) << at;
        // Consecutive steps: each starts from the scale the previous one left.
        if (r.step > 1) {
            EXPECT_EQ(r.scale, records[static_cast<std::size_t>(r.step - 2)].scale_after) << at;
        }
        if (r.backoff) {
            ++backoffs;
            EXPECT_TRUE(r.found_inf) << at;
            EXPECT_TRUE(r.skipped) << at;
            EXPECT_EQ(r.scale_after, r.scale * backoff) << at;
        } else if (r.growth) {
            ++growths;
            EXPECT_FALSE(r.found_inf) << at;
            EXPECT_FALSE(r.skipped) << at;
            EXPECT_EQ(r.scale_after, r.scale * growth) << at;
        } else {
            EXPECT_EQ(r.scale_after, r.scale) << at;
        }
    }
    std::printf("[ measured ] %s: %d backoffs, %d growths, final scale %g, acc %.4f\n", config.name.c_str(), backoffs,
                growths, static_cast<double>(records.back().scale_after),
                static_cast<double>(records.back().acc.value_or(-1)));
    EXPECT_GE(backoffs, 3);
    EXPECT_GE(growths, 3);
}

// Bars set a few points below what the presets reach on this code (seed 1,
// CPU backend): both measured 0.9674 (297 of 307 test rows) after 2000 steps,
// as did spirals-amp-fp16 and every twin.
TEST(PresetTraining, Bf16PresetLearns) {
    const RunConfig config = load_preset("spirals-bf16");
    const std::vector<StepRecord> records = train(config);
    print_accuracies(config.name, records);
    EXPECT_GE(final_accuracy(records), 0.93f);
}

TEST(PresetTraining, Fp32PresetLearnsAndMatchesItsTwinExactly) {
    const RunConfig config = load_preset("spirals-fp32");
    const std::vector<StepRecord> records = train(config);
    print_accuracies(config.name, records);
    EXPECT_GE(final_accuracy(records), 0.93f);
    // The description promises an exact twin: same formats, same batches.
    const StepRecord& last = records.back();
    ASSERT_TRUE(last.acc_ref.has_value());
    EXPECT_EQ(*last.acc, *last.acc_ref);
    EXPECT_EQ(last.loss, last.loss_ref);
}

}  // namespace
}  // namespace plab

namespace plab {
namespace {

// fp16-static-overflow's description promises a first overflow at step 261
// that the static scaler skips without backing off.
TEST(PresetTraining, Fp16StaticOverflowPresetOverflowsFirstAtStep261) {
    RunConfig config = load_preset("fp16-static-overflow");
    ASSERT_EQ(config.scaler.kind, ScalerKind::static_scale);
    config.steps = 265;
    CpuBackend backend;
    Trainer trainer(backend, config);
    for (int s = 1; s <= 265; ++s) {
        const StepRecord r = trainer.step();
        EXPECT_EQ(r.found_inf, s == 261 || s == 263) << "step " << s;
        if (r.found_inf) {
            EXPECT_TRUE(r.skipped);
            EXPECT_FALSE(r.backoff);
            EXPECT_EQ(r.scale_after, 65536.0f);
        }
    }
}

// The CPU backend's two ways with subnormals (subnormal_arithmetic.h) are
// one definition: the default preset, past the point where stalled units'
// moments sit in the subnormal range, trains to the same bits either way.
std::vector<std::uint32_t> master_bits(const Trainer& trainer) {
    std::vector<std::uint32_t> out;
    for (const Linear& l : trainer.model().linears())
        for (const Parameter* p : {&l.weight, &l.bias}) {
            const Tensor& t = p->master.empty() ? p->value : p->master;
            for (std::size_t i = 0; i < t.size(); ++i) out.push_back(std::bit_cast<std::uint32_t>(t.host()[i]));
        }
    return out;
}

TEST(PresetTraining, BothWaysWithSubnormalsTrainTheSameBits) {
    RunConfig config = load_preset("spirals-amp-fp16");
    config.steps = 2500;
    config.telemetry.hist_every = 0;
    std::vector<std::vector<std::uint32_t>> weights;
    std::vector<std::vector<float>> losses;
    for (const auto way : {cpu::SubnormalArithmetic::hardware, cpu::SubnormalArithmetic::exact_lanes}) {
        cpu::set_subnormal_arithmetic(way);
        CpuBackend backend;
        Trainer trainer(backend, config);
        losses.emplace_back();
        for (int s = 0; s < config.steps; ++s) losses.back().push_back(trainer.step().loss);
        weights.push_back(master_bits(trainer));
    }
    cpu::set_subnormal_arithmetic(cpu::SubnormalArithmetic::automatic);
    EXPECT_EQ(weights[0], weights[1]);
    ASSERT_EQ(losses[0].size(), losses[1].size());
    for (std::size_t i = 0; i < losses[0].size(); ++i)
        ASSERT_EQ(std::bit_cast<std::uint32_t>(losses[0][i]), std::bit_cast<std::uint32_t>(losses[1][i])) << "step " << i + 1;
}

// bf16-precision-cost stores its weights in BF16: after training, every
// value's FP32 word has its low 16 bits clear (a BF16 value's bit pattern),
// whether or not FP32 master copies are kept. The master copies exist only
// with master_weights, hold what BF16 cannot, and the values are their rounding.
TEST(PresetTraining, Bf16PrecisionCostStoresItsWeightsInBf16) {
    for (const bool master : {false, true}) {
        SCOPED_TRACE(master ? "precision.master_weights=true" : "no master weights");
        RunConfig config = load_preset("bf16-precision-cost");
        ASSERT_EQ(config.precision.recipe, Recipe::bf16_pure);
        config.precision.master_weights = master;
        config.steps = 50;
        config.telemetry.hist_every = 0;
        CpuBackend backend;
        Trainer trainer(backend, config);
        for (int s = 0; s < config.steps; ++s) trainer.step();
        std::size_t values = 0, beyond_bf16 = 0;
        for (const Linear& l : trainer.model().linears())
            for (const Parameter* p : {&l.weight, &l.bias}) {
                ASSERT_EQ(p->value.dtype(), FormatId::bf16) << p->name;
                ASSERT_EQ(p->master.empty(), !master) << p->name;
                for (std::size_t i = 0; i < p->value.size(); ++i) {
                    const float v = p->value.host()[i];
                    ASSERT_EQ(std::bit_cast<std::uint32_t>(v) & 0xffffu, 0u) << p->name << "[" << i << "] " << v;
                    ++values;
                    if (!master) continue;
                    const float m = p->master.host()[i];
                    ASSERT_EQ(v, round_to(FormatId::bf16, m)) << p->name << "[" << i << "]";
                    beyond_bf16 += (std::bit_cast<std::uint32_t>(m) & 0xffffu) != 0;
                }
            }
        EXPECT_EQ(values, std::size_t{(1 * 64 + 64) + (64 * 64 + 64) + (64 * 1 + 1)});
        if (master) {
            EXPECT_GT(beyond_bf16, values / 2);  // the masters keep the bits BF16 rounds away
        }
    }
}

}  // namespace
}  // namespace plab
