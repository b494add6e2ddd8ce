// What a run comes to and a cell's spread over its seeds, on records and
// measures made by hand, with the figures worked out by hand.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "engine/sweep/cell_summary.h"
#include "engine/sweep/run_measures.h"
#include "engine/train/preset_io.h"

namespace plab {
namespace {

StepRecord step(std::int64_t n, float scale, bool skipped, bool growth, std::int64_t zeros) {
    StepRecord r;
    r.step = n;
    r.scale = scale;
    r.skipped = skipped;
    r.growth = growth;
    r.loss = static_cast<float>(n) / 8.0f;
    r.layers.resize(2);
    r.layers[0].grad.count = 100;
    r.layers[0].grad.zeros = zeros;
    r.layers[1].grad.count = 300;
    r.layers[1].grad.zeros = 1;
    return r;
}

TEST(RunMeter, CountsFromTheRecords) {
    RunConfig config;
    apply_settings(config, {"scaler.kind=hysteresis", "scaler.init_scale=8", "scaler.min_scale=2", "scaler.max_scale=2^6"});
    RunMeter meter(config.scaler, {FormatId::fp16, FormatId::fp16});
    meter.add(step(1, 64.0f, true, false, 3));   // at the ceiling
    meter.add(step(2, 2.0f, true, false, 0));    // at the floor
    meter.add(step(3, 8.0f, false, true, 7));
    StepRecord last = step(4, 16.0f, false, true, 10);
    last.acc = 0.75f;
    last.acc_ref = 0.875f;
    meter.add(last);
    const RunMeasures m = meter.result();
    EXPECT_EQ(m.steps, 4);
    EXPECT_EQ(m.skipped, 2);
    EXPECT_EQ(m.floor_steps, 1);
    EXPECT_EQ(m.ceiling_steps, 1);
    EXPECT_EQ(m.first_growth_step, 3);
    EXPECT_DOUBLE_EQ(m.grad_zero_share, (3 + 0 + 7 + 10 + 4 * 1) / 1600.0);
    EXPECT_EQ(m.final_loss, 0.5f);
    EXPECT_EQ(m.acc_gap(), 0.125f);
    EXPECT_FALSE(m.twin_flush_share);  // no twin view on any step
}

// The twin's flushes, by each layer's gradient format: layer 0 held in
// FP16 (a quarter of its 100 values flush there on one step, none on the
// other), layer 1 in BF16 (an eighth of 300 on one step); steps without a
// twin view count nothing.
TEST(RunMeter, TheTwinsFlushesByEachLayersFormat) {
    RunMeter meter(ScalerConfig{}, {FormatId::fp16, FormatId::bf16});
    const auto with_twin = [](std::int64_t n, float fp16_layer0, float bf16_layer1) {
        StepRecord r = step(n, 1.0f, false, false, 0);
        auto twin = std::make_shared<TwinView>();
        twin->layers = r.layers;
        twin->layers[0].grad.ranges[0].underflow = fp16_layer0;  // kRangeFormats: fp16, bf16, e4m3, e5m2
        twin->layers[0].grad.ranges[1].underflow = 0.5f;       // not layer 0's format: not counted
        twin->layers[1].grad.ranges[1].underflow = bf16_layer1;
        r.twin_view = twin;
        return r;
    };
    meter.add(with_twin(1, 0.25f, 0.125f));
    meter.add(step(2, 1.0f, false, false, 0));
    meter.add(with_twin(3, 0.0f, 0.0f));
    const RunMeasures m = meter.result();
    ASSERT_TRUE(m.twin_flush_share);
    EXPECT_DOUBLE_EQ(*m.twin_flush_share, (25 + 37.5) / 800.0);
    // FP32 gradients: no format telemetry measures, nothing flushes.
    RunMeter fp32(ScalerConfig{}, {FormatId::fp32, FormatId::fp32});
    fp32.add(with_twin(1, 0.25f, 0.125f));
    EXPECT_EQ(fp32.result().twin_flush_share, 0.0);
}

TEST(RunMeter, NoGrowthNoAccuracy) {
    RunMeter meter(ScalerConfig{}, {FormatId::fp16, FormatId::fp16});
    meter.add(step(1, 65536.0f, false, false, 0));
    const RunMeasures m = meter.result();
    EXPECT_FALSE(m.first_growth_step);
    EXPECT_FALSE(m.acc_gap());
}

TEST(CellSummary, MeanAndRangeOverTheSeeds) {
    std::vector<RunMeasures> runs(3);
    runs[0].skipped = 4;
    runs[1].skipped = 1;
    runs[2].skipped = 10;
    runs[0].first_growth_step = 50;
    runs[2].first_growth_step = 150;
    runs[1].acc = 0.5f;
    const CellSummary c = summarise_cell(runs);
    EXPECT_EQ(c.runs, 3);
    EXPECT_DOUBLE_EQ(c.skipped.mean, 5.0);
    EXPECT_EQ(c.skipped.min, 1.0);
    EXPECT_EQ(c.skipped.max, 10.0);
    ASSERT_TRUE(c.first_growth_step);  // over the two runs that grew
    EXPECT_EQ(c.first_growth_step->runs, 2);
    EXPECT_DOUBLE_EQ(c.first_growth_step->mean, 100.0);
    ASSERT_TRUE(c.acc);
    EXPECT_EQ(c.acc->runs, 1);
    EXPECT_FALSE(c.acc_gap);
}

}  // namespace
}  // namespace plab
