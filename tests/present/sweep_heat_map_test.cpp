// The sweep's heat map against hand-worked values: labels from the axes,
// colours on the measure's scale (log for losses, worked out in the
// comments), pending cells, hover text, the best cell under the skipped-step
// limit, and the best cell's scaler as the two snippets.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "ui/present/sweep_heat_map.h"
#include "ui/present/sweep_snippets.h"

namespace plab {
namespace {

// 2 x 2 cells, the preset's seed once: runs 0..3 are cells 0..3.
SweepPlan two_by_two() {
    return plan_sweep(load_preset("spirals-amp-fp16"), {{}, 100, {}, {}},
                      {parse_sweep_axis("scaler.init_scale=2^8,2^16"), parse_sweep_axis("scaler.growth_interval=5,20")},
                      {});
}

RunMeasures measured(std::int64_t skipped, float loss, float acc) {
    RunMeasures m;
    m.steps = 100;
    m.skipped = skipped;
    m.final_loss = loss;
    m.acc = acc;
    return m;
}

// Losses 1, 0.125 and 8 (powers of two, exact in float); the last cell still trains.
std::vector<std::optional<RunMeasures>> three_done() {
    return {measured(2, 1.0f, 0.75f), measured(10, 0.125f, 0.5f), measured(0, 8.0f, 1.0f), std::nullopt};
}

TEST(SweepHeatMap, LabelsComeFromTheAxes) {
    const SweepHeatMap v = make_heat_map(two_by_two(), three_done(), {});
    EXPECT_EQ(v.row_field, "scaler.init_scale");
    EXPECT_EQ(v.row_labels, (std::vector<std::string>{"2^8", "2^16"}));
    EXPECT_EQ(v.column_field, "scaler.growth_interval");
    EXPECT_EQ(v.column_labels, (std::vector<std::string>{"5", "20"}));
    ASSERT_EQ(v.cells.size(), 4u);
    EXPECT_EQ(v.finished, 3u);
}

// On a log scale from 0.125 (best, 1) to 8 (worst, 0), ln 1 = 0 sits halfway:
// (0 - ln 0.125) / (ln 8 - ln 0.125) = 3 ln 2 / 6 ln 2 = 1/2.
TEST(SweepHeatMap, LossesColourOnALogScale) {
    const SweepHeatMap v = make_heat_map(two_by_two(), three_done(), {SweepMetric::final_loss, 5});
    EXPECT_TRUE(v.log_scale);
    EXPECT_EQ(v.title, "final loss (log scale, lower is better)");
    EXPECT_DOUBLE_EQ(v.cells[0].colour, 0.5);
    EXPECT_DOUBLE_EQ(v.cells[1].colour, 1.0);
    EXPECT_DOUBLE_EQ(v.cells[2].colour, 0.0);
    EXPECT_EQ(v.cells[0].text, "1");
    EXPECT_EQ(v.cells[1].text, "0.125");
    EXPECT_EQ(v.worst_text, "8");
    EXPECT_EQ(v.best_text, "0.125");
}

// Linear, higher is better: 0.5 -> 0, 0.75 -> (0.75 - 0.5) / (1 - 0.5) = 1/2, 1 -> 1.
TEST(SweepHeatMap, AccuracyColoursLinearlyHigherBetter) {
    const SweepHeatMap v = make_heat_map(two_by_two(), three_done(), {SweepMetric::test_acc, 5});
    EXPECT_FALSE(v.log_scale);
    EXPECT_DOUBLE_EQ(v.cells[0].colour, 0.5);
    EXPECT_DOUBLE_EQ(v.cells[1].colour, 0.0);
    EXPECT_DOUBLE_EQ(v.cells[2].colour, 1.0);
    EXPECT_EQ(v.cells[2].text, "100%");
    ASSERT_TRUE(v.best);
    EXPECT_EQ(*v.best, 2u);
}

TEST(SweepHeatMap, ALossOfZeroFallsBackToLinear) {
    auto runs = three_done();
    runs[2]->final_loss = 0.0f;
    const SweepHeatMap v = make_heat_map(two_by_two(), runs, {SweepMetric::final_loss, 5});
    EXPECT_FALSE(v.log_scale);
    // (1 - 0) / (1 - 0) of the way to the worst: colour 0; 0.125 -> 1 - 0.125.
    EXPECT_DOUBLE_EQ(v.cells[0].colour, 0.0);
    EXPECT_DOUBLE_EQ(v.cells[1].colour, 0.875);
}

TEST(SweepHeatMap, ATrainingCellIsPendingAndSaysHowFar) {
    const SweepHeatMap v = make_heat_map(two_by_two(), three_done(), {});
    EXPECT_TRUE(v.cells[3].pending);
    EXPECT_FALSE(v.cells[3].value);
    EXPECT_EQ(v.cells[3].text, "…");
    EXPECT_EQ(v.cells[3].hover, "scaler.init_scale=2^16\nscaler.growth_interval=20\ntraining: 0 of 1 runs finished");
    EXPECT_FALSE(v.cells[0].pending);
}

TEST(SweepHeatMap, HoverHoldsEveryNumber) {
    const SweepHeatMap v = make_heat_map(two_by_two(), three_done(), {});
    EXPECT_EQ(v.cells[0].hover,
              "scaler.init_scale=2^8\nscaler.growth_interval=5\n"
              "skipped steps: 2 of 100\nat floor / ceiling: 0 / 0\ngrad zeros: 0%\ntrue flush (twin): -\nfinal loss: 1\n"
              "test accuracy: 75%\ngap to FP32 twin: -\ntest loss: -\nfirst growth: none");
}

// Cell 1 has the lowest loss but skipped 10% of its steps; cell 0 (2%) wins at
// 5%, cell 2 (0%) at 1%, and at 10% the limit is reached, not passed.
TEST(SweepHeatMap, BestCellStaysUnderTheSkippedLimit) {
    const auto runs = three_done();
    const SweepHeatMap at5 = make_heat_map(two_by_two(), runs, {SweepMetric::final_loss, 5});
    ASSERT_TRUE(at5.best);
    EXPECT_EQ(*at5.best, 0u);
    EXPECT_TRUE(at5.cells[0].best);
    EXPECT_FALSE(at5.cells[1].best);
    EXPECT_EQ(at5.best_line,
              "Best with at most 5% skipped steps: scaler.init_scale=2^8, scaler.growth_interval=5 (final loss 1)");
    EXPECT_EQ(make_heat_map(two_by_two(), runs, {SweepMetric::final_loss, 1}).best, 2u);
    EXPECT_EQ(make_heat_map(two_by_two(), runs, {SweepMetric::final_loss, 10}).best, 1u);
}

TEST(SweepHeatMap, NoBestBeforeAnyCellFinishes) {
    const SweepHeatMap v = make_heat_map(two_by_two(), std::vector<std::optional<RunMeasures>>(4), {});
    EXPECT_FALSE(v.best);
    EXPECT_EQ(v.best_line, "No cell has finished yet.");
    EXPECT_EQ(v.best_text, "");
}

// One axis, two seeds: a single unnamed row; a cell waits for both seeds, and
// the limit holds for its worst seed (8% here, though the mean is 4.5%).
TEST(SweepHeatMap, OneAxisWithSeeds) {
    const SweepPlan plan = plan_sweep(load_preset("spirals-amp-fp16"), {{}, 100, {}, {}},
                                      {parse_sweep_axis("scaler.growth_interval=5,20")}, {1, 2});
    const std::vector<std::optional<RunMeasures>> runs = {measured(1, 0.5f, 0.5f), measured(8, 0.25f, 0.5f),
                                                          measured(0, 2.0f, 0.5f), std::nullopt};
    const SweepHeatMap v = make_heat_map(plan, runs, {SweepMetric::skipped, 5});
    EXPECT_EQ(v.row_field, "");
    EXPECT_EQ(v.row_labels, (std::vector<std::string>{""}));
    EXPECT_EQ(v.cells[0].text, "4.5");
    EXPECT_TRUE(v.cells[1].pending);
    EXPECT_EQ(v.cells[1].hover, "scaler.growth_interval=20\ntraining: 1 of 2 runs finished");
    EXPECT_FALSE(v.best);
    EXPECT_EQ(v.best_line, "No finished cell has at most 5% skipped steps.");
    EXPECT_NE(v.cells[0].hover.find("skipped steps: 4.5 [1..8] of 100"), std::string::npos);
    EXPECT_NE(v.cells[0].hover.find("over 2 seeds"), std::string::npos);
}

TEST(SweepSnippets, TheCellsScalerAsPyTorchAndDeepSpeed) {
    const std::string text = sweep_cell_snippets(two_by_two(), 1);  // init_scale 2^8, growth_interval 20
    EXPECT_NE(text.find("torch.amp.GradScaler(\n    \"cuda\",\n    init_scale=256.0,\n"), std::string::npos) << text;
    EXPECT_NE(text.find("    growth_interval=20,\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\"initial_scale_power\": 8,\n"), std::string::npos) << text;
    EXPECT_NE(text.find("\"loss_scale_window\": 20,\n"), std::string::npos) << text;
    EXPECT_EQ(sweep_cell_snippets(two_by_two(), 9), "");
}

}  // namespace
}  // namespace plab
