#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "ui/present/decision_view.h"

namespace plab {
namespace {

// A hand-made 4x4 grid over x -2..2, y 0..4 with three classes. The twin
// differs from AMP in cells 1, 6 and 15.
DecisionGrid hand_grid(bool twin = true) {
    DecisionGrid g;
    g.step = 1200;
    g.x_min = -2;
    g.x_max = 2;
    g.y_min = 0;
    g.y_max = 4;
    g.resolution = 4;
    g.classes = 3;
    g.amp = {0, 0, 1, 1,  //
             0, 2, 1, 1,  //
             2, 2, 2, 1,  //
             2, 2, 2, 2};
    g.amp_confidence = std::vector<float>(16, 1.0f);
    g.amp_confidence[0] = 0.5f;             // (0.5 - 1/3) / (2/3) = 0.25
    g.amp_confidence[1] = 1.0f / 3.0f;      // chance: 0
    g.amp_confidence[2] = 0.25f;            // below chance (cannot be argmax, clamped): 0
    if (twin) {
        g.twin = g.amp;
        g.twin[1] = 1;
        g.twin[6] = 2;
        g.twin[15] = 0;
        g.twin_confidence = std::vector<float>(16, 0.5f);
    }
    g.points = {{1.0f, 3.0f, 2}, {-2.0f, 0.0f, 0}, {0.0f, 1.0f, 1}};
    return g;
}

TEST(DecisionView, DifferenceMapAndDisagreementOfAHandMadeGrid) {
    const DecisionView v = make_decision_view(hand_grid(), Recipe::amp_fp16);
    EXPECT_EQ(v.step, 1200);
    EXPECT_EQ(v.resolution, 4);
    EXPECT_EQ(v.classes, 3);
    EXPECT_TRUE(v.has_twin);
    EXPECT_EQ(v.amp.title, "AMP (amp-fp16) · step 1200");
    EXPECT_EQ(v.twin.title, "FP32 twin · step 1200");
    EXPECT_EQ(v.difference_title, "Difference · step 1200");
    const std::vector<std::uint8_t> differ = {0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1};
    EXPECT_EQ(v.differ, differ);
    EXPECT_EQ(v.differing_cells, 3);
    EXPECT_DOUBLE_EQ(v.disagree_percent, 18.75);
    // 18.75 rounds half up to 18.8.
    EXPECT_EQ(v.summary, "AMP and twin disagree on 18.8% of the plane (3 of 16 cells)");
    EXPECT_EQ(v.amp.classes, hand_grid().amp);
    EXPECT_EQ(v.twin.classes, hand_grid().twin);
}

TEST(DecisionView, ShadeRunsFromChanceToCertainty) {
    const DecisionView v = make_decision_view(hand_grid(), Recipe::amp_fp16);
    ASSERT_EQ(v.amp.shade.size(), 16u);
    EXPECT_FLOAT_EQ(v.amp.shade[0], 0.25f);
    EXPECT_NEAR(v.amp.shade[1], 0.0f, 1e-7);  // 1/3 rounded to float sits a hair above chance
    EXPECT_EQ(v.amp.shade[2], 0.0f);
    EXPECT_EQ(v.amp.shade[3], 1.0f);
    ASSERT_EQ(v.twin.shade.size(), 16u);
    for (float s : v.twin.shade) EXPECT_FLOAT_EQ(s, 0.25f);
    // Two classes: chance is 1/2, so 0.75 sits halfway.
    DecisionGrid two = hand_grid(false);
    two.classes = 2;
    two.amp_confidence = std::vector<float>(16, 0.75f);
    for (float s : make_decision_view(two, Recipe::fp32).amp.shade) EXPECT_EQ(s, 0.5f);
}

TEST(DecisionView, PointsInUnitCoordinatesOfThePlane) {
    const DecisionView v = make_decision_view(hand_grid(), Recipe::amp_fp16);
    ASSERT_EQ(v.points.size(), 3u);
    EXPECT_EQ(v.points[0].u, 0.75);
    EXPECT_EQ(v.points[0].v, 0.75);
    EXPECT_EQ(v.points[0].label, 2);
    EXPECT_EQ(v.points[1].u, 0.0);
    EXPECT_EQ(v.points[1].v, 0.0);
    EXPECT_EQ(v.points[2].u, 0.5);
    EXPECT_EQ(v.points[2].v, 0.25);
    EXPECT_EQ(v.points[2].label, 1);
}

TEST(DecisionView, WithoutATwinThereIsNoDifferenceAndTheTextSaysSo) {
    const DecisionView v = make_decision_view(hand_grid(false), Recipe::amp_bf16);
    EXPECT_FALSE(v.has_twin);
    EXPECT_TRUE(v.twin.classes.empty());
    EXPECT_TRUE(v.differ.empty());
    EXPECT_EQ(v.differing_cells, 0);
    EXPECT_EQ(v.amp.title, "AMP (amp-bf16) · step 1200");
    EXPECT_EQ(v.summary, "No FP32 twin in this run: nothing to compare the AMP boundary with");
}

TEST(DecisionView, FullAgreementIsSaidInWords) {
    DecisionGrid g = hand_grid();
    g.twin = g.amp;
    const DecisionView v = make_decision_view(g, Recipe::amp_fp16);
    EXPECT_EQ(v.differ, std::vector<std::uint8_t>(16, 0));
    EXPECT_EQ(v.disagree_percent, 0.0);
    EXPECT_EQ(v.summary, "AMP and twin agree on every cell of the plane (16 cells)");
}

TEST(DecisionView, PercentTextHasOneDecimalAndNeverRoundsToTheEnds) {
    EXPECT_EQ(percent_text(70, 4096), "1.7%");     // 1.709
    EXPECT_EQ(percent_text(1, 16), "6.3%");        // 6.25, half up
    EXPECT_EQ(percent_text(1, 8), "12.5%");
    EXPECT_EQ(percent_text(1, 2), "50.0%");
    EXPECT_EQ(percent_text(3, 4096), "0.1%");      // 0.0732
    EXPECT_EQ(percent_text(2, 4096), "< 0.1%");    // 0.0488
    EXPECT_EQ(percent_text(1, 4096), "< 0.1%");
    EXPECT_EQ(percent_text(4095, 4096), "> 99.9%");
    EXPECT_EQ(percent_text(4093, 4096), "99.9%");  // 99.927
    EXPECT_EQ(percent_text(0, 16), "0%");
    EXPECT_EQ(percent_text(16, 16), "100%");
}

std::shared_ptr<const StepRecord> record(std::int64_t step, bool grid) {
    auto r = std::make_shared<StepRecord>();
    r->step = step;
    if (grid) {
        auto g = std::make_shared<DecisionGrid>();
        g->step = step;
        r->boundary = g;
    }
    return r;
}

TEST(DecisionView, LatestBoundaryIsTheNewestRecordWithAGrid) {
    RunLogView log;
    EXPECT_EQ(latest_boundary(log), nullptr);
    log.recent = {record(9, false), record(10, true), record(11, false), record(20, true), record(21, false)};
    const auto g = latest_boundary(log);
    ASSERT_NE(g, nullptr);
    EXPECT_EQ(g->step, 20);
    EXPECT_EQ(g, log.recent[3]->boundary);
    log.recent = {record(1, false), record(2, false)};
    EXPECT_EQ(latest_boundary(log), nullptr);
}

TEST(DecisionView, PlaceholderSaysWhyNothingIsDrawn) {
    RunConfig spirals;
    spirals.data.kind = DatasetKind::spirals;
    RunConfig sine;
    sine.data.kind = DatasetKind::sine;
    const DecisionGrid g = hand_grid();
    EXPECT_EQ(decision_placeholder(sine, &g, 100),
              "Decision boundary: needs a 2-D classification set (this run's data set is sine, a regression)");
    EXPECT_EQ(decision_placeholder(spirals, nullptr, 100), "No grid yet: taken every 100 steps");
    EXPECT_EQ(decision_placeholder(spirals, nullptr, 0), "Decision boundary: grids are off for this workbench");
    EXPECT_EQ(decision_placeholder(spirals, &g, 100), "");
}

}  // namespace
}  // namespace plab
