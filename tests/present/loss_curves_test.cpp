#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ui/present/loss_curves.h"

namespace plab {
namespace {

StepRecord loss_step(std::int64_t step, float loss, float loss_ref) {
    StepRecord r;
    r.step = step;
    r.loss = loss;
    r.loss_ref = loss_ref;
    return r;
}

void expect_points(const std::vector<XY>& got, const std::vector<XY>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got[i].x, want[i].x) << "point " << i;
        EXPECT_EQ(got[i].y, want[i].y) << "point " << i;
    }
}

void expect_curve(const Curve& c, const std::string& name, bool twin, bool test) {
    EXPECT_EQ(c.name, name);
    EXPECT_EQ(c.twin, twin) << name;
    EXPECT_EQ(c.test, test) << name;
}

// Eight steps, drawn in four columns two steps wide (column c: steps 2c,
// 2c + 1; step 8 the last). Losses 0, NaN, -1 and inf cannot be drawn on a
// log axis. Evaluations after steps 4 and 8; the second test loss is 0.
RunLog eight_step_log() {
    const float inf = std::numeric_limits<float>::infinity();
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float loss[8] = {0.5f, 0.25f, 0.0f, nan, 0.125f, -1.0f, inf, 0.0625f};
    const float loss_ref[8] = {0.5f, 0.5f, 0.25f, 0.25f, 0.125f, 0.125f, 0.0625f, 0.0625f};
    RunLog log;
    for (std::int64_t s = 1; s <= 8; ++s) {
        StepRecord r = loss_step(s, loss[s - 1], loss_ref[s - 1]);
        if (s == 4) {
            r.acc = 0.75f;
            r.acc_ref = 0.8f;
            r.test_loss = 0.3f;
            r.test_loss_ref = 0.2f;
        }
        if (s == 8) {
            r.acc = 0.9f;
            r.acc_ref = 0.95f;
            r.test_loss = 0.0f;
            r.test_loss_ref = 0.1f;
        }
        log.append(r);
    }
    return log;
}

TEST(LossCurves, RunWithTwin) {
    const RunLog log = eight_step_log();
    const LossCurves c = make_loss_curves(log.view(), true, 4);
    ASSERT_EQ(c.loss.size(), 4u);
    ASSERT_EQ(c.accuracy.size(), 2u);
    expect_curve(c.loss[0], "train (AMP)", false, false);
    expect_curve(c.loss[1], "train (FP32 twin)", true, false);
    expect_curve(c.loss[2], "test (AMP)", false, true);
    expect_curve(c.loss[3], "test (FP32 twin)", true, true);
    expect_curve(c.accuracy[0], "test (AMP)", false, true);
    expect_curve(c.accuracy[1], "test (FP32 twin)", true, true);

    // Columns at x 1, 3, 5, 7: lo then hi of the drawable losses in each.
    expect_points(c.loss[0].points, {{1, 0.5}, {1, 0.5}, {3, 0.25}, {3, 0.25}, {5, 0.125}, {5, 0.125},
                                     {7, 0.0625}, {7, 0.0625}});
    expect_points(c.loss[1].points, {{1, 0.5}, {1, 0.5}, {3, 0.25}, {3, 0.5}, {5, 0.125}, {5, 0.25},
                                     {7, 0.0625}, {7, 0.125}});
    expect_points(c.loss[2].points, {{4, static_cast<double>(0.3f)}});
    expect_points(c.loss[3].points, {{4, static_cast<double>(0.2f)}, {8, static_cast<double>(0.1f)}});
    expect_points(c.accuracy[0].points, {{4, 0.75}, {8, static_cast<double>(0.9f)}});
    expect_points(c.accuracy[1].points, {{4, static_cast<double>(0.8f)}, {8, static_cast<double>(0.95f)}});

    EXPECT_EQ(c.step_min, 0.0);
    EXPECT_EQ(c.step_max, 8.0);
    // Drawn losses run from 0.0625 to 0.5: decades 10^-2 .. 10^0.
    EXPECT_DOUBLE_EQ(c.loss_min, 0.01);
    EXPECT_DOUBLE_EQ(c.loss_max, 1.0);
    EXPECT_EQ(c.summary, "loss 0.0625 (twin 0.0625) · acc 90.0% (twin 95.0%)");
}

// A language model's summary adds the perplexity of the latest test loss:
// e^0 = 1, e^0.1 = 1.105 for the twin.
TEST(LossCurves, ALanguageModelsSummaryAddsTheTestPerplexity) {
    EXPECT_EQ(make_loss_curves(eight_step_log().view(), true, 4, true).summary,
              "loss 0.0625 (twin 0.0625) · acc 90.0% (twin 95.0%) · test ppl 1 (twin 1.11)");
    EXPECT_EQ(make_loss_curves(eight_step_log().view(), false, 4, true).summary,
              "loss 0.0625 · acc 90.0% · test ppl 1");
}

TEST(LossCurves, LossesOffTheLogAxisAreMarkedWhereTheyBegin) {
    const LossCurves c = make_loss_curves(eight_step_log().view(), true, 4);
    // Steps 3 (0), 4 (NaN), 6 (-1), 7 (Inf); the twin's are all drawable.
    ASSERT_EQ(c.marks.size(), 4u);
    const struct {
        double x;
        bool top;
        const char* text;
    } want[] = {{3, false, "0 at step 3"}, {4, true, "NaN at step 4"}, {6, false, "< 0 at step 6"}, {7, true, "Inf at step 7"}};
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(c.marks[i].x, want[i].x) << i;
        EXPECT_EQ(c.marks[i].top, want[i].top) << i;
        EXPECT_EQ(c.marks[i].text, want[i].text) << i;
        EXPECT_FALSE(c.marks[i].twin) << i;
    }
}

// The line stops where the loss leaves the log axis and starts again after:
// a column of two NaN points between the last drawable step before a run of
// zero losses and the first after it, and no other break.
TEST(LossCurves, TheLineBreaksAcrossLossesOffTheAxis) {
    RunLog log;
    for (std::int64_t s = 1; s <= 30; ++s) log.append(loss_step(s, s > 10 && s <= 20 ? 0.0f : 1.0f / s, 0.5f));
    const LossCurves c = make_loss_curves(log.view(), true, 60);  // a column of its own for every step
    const std::vector<XY>& line = c.loss[0].points;
    std::vector<std::size_t> gaps;
    for (std::size_t i = 0; i < line.size(); ++i)
        if (std::isnan(line[i].y)) gaps.push_back(i);
    ASSERT_EQ(gaps.size(), 2u);
    ASSERT_EQ(gaps[1], gaps[0] + 1);
    ASSERT_GT(gaps[0], 0u);
    EXPECT_LT(line[gaps[0] - 1].x, 11.0);
    EXPECT_GT(line[gaps[1] + 1].x, 20.0);
    EXPECT_EQ(line.size(), 2u * 20 + 2);  // 20 drawn columns and the gap
    for (const XY& p : c.loss[1].points) EXPECT_FALSE(std::isnan(p.y));  // the twin's never left the axis
}

// A fork whose loss is 0 at every step draws no line: its marks, named and
// flagged as the fork's, come after the main run's.
TEST(LossCurves, AForksMarksFollowTheMainRunsNamedAsTheForks) {
    RunLog fork;
    for (std::int64_t s = 11; s <= 30; ++s) fork.append(loss_step(s, 0.0f, 0.0f));
    const LossCurves f = make_loss_curves(fork.view(), false, 100);
    EXPECT_TRUE(f.loss.empty() || f.loss.front().points.empty());
    const LossCurves c = make_loss_curves(eight_step_log().view(), true, 4);
    const std::vector<LossMark> marks = marks_with_fork(c.marks, f.marks);
    ASSERT_EQ(marks.size(), c.marks.size() + 1);
    for (std::size_t i = 0; i < c.marks.size(); ++i) {
        EXPECT_EQ(marks[i].text, c.marks[i].text) << i;
        EXPECT_FALSE(marks[i].fork) << i;
    }
    const LossMark& m = marks.back();
    EXPECT_TRUE(m.fork);
    EXPECT_FALSE(m.twin);
    EXPECT_FALSE(m.top);
    EXPECT_TRUE(m.finite);
    EXPECT_EQ(m.x, 11.0);
    EXPECT_EQ(m.text, "fork: 0 at steps 11-30");
}

TEST(LossCurves, ARunOfNaNStepsIsOneMark) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    RunLog log;
    for (std::int64_t s = 1; s <= 60; ++s) log.append(loss_step(s, s < 31 ? 1.0f : nan, s < 19 ? 1.0f : 0.0f));
    const LossCurves c = make_loss_curves(log.view(), true, 100);
    ASSERT_EQ(c.marks.size(), 2u);
    EXPECT_EQ(c.marks[0].text, "NaN at steps 31-60");
    EXPECT_EQ(c.marks[0].x, 31.0);
    EXPECT_EQ(c.marks[1].text, "twin: 0 at steps 19-60");
    EXPECT_EQ(c.marks[1].x, 19.0);
    EXPECT_EQ(loss_text(-std::numeric_limits<float>::infinity(), 4), "-Inf");
    EXPECT_EQ(loss_text(0.0969123f, 4), "0.09691");
}

TEST(LossCurves, RunWithoutTwin) {
    const RunLog log = eight_step_log();
    const LossCurves c = make_loss_curves(log.view(), false, 4);
    ASSERT_EQ(c.loss.size(), 2u);
    ASSERT_EQ(c.accuracy.size(), 1u);
    expect_curve(c.loss[0], "train (AMP)", false, false);
    expect_curve(c.loss[1], "test (AMP)", false, true);
    expect_curve(c.accuracy[0], "test (AMP)", false, true);
    EXPECT_EQ(c.loss[0].points.size(), 8u);
    expect_points(c.loss[1].points, {{4, static_cast<double>(0.3f)}});
    EXPECT_EQ(c.summary, "loss 0.0625 · acc 90.0%");
}

TEST(LossCurves, RegressionShowsTestLoss) {
    RunLog log;
    for (std::int64_t s = 1; s <= 3; ++s) {
        StepRecord r = loss_step(s, 2.0f, 3.0f);
        if (s == 2) {
            r.test_loss = 0.04f;
            r.test_loss_ref = 0.05f;
        }
        log.append(r);
    }
    const LossCurves c = make_loss_curves(log.view(), true, 100);
    EXPECT_TRUE(c.accuracy[0].points.empty());
    EXPECT_TRUE(c.accuracy[1].points.empty());
    expect_points(c.loss[2].points, {{2, static_cast<double>(0.04f)}});
    // 0.04 .. 3: decades 10^-2 .. 10^1.
    EXPECT_DOUBLE_EQ(c.loss_min, 0.01);
    EXPECT_DOUBLE_EQ(c.loss_max, 10.0);
    EXPECT_EQ(c.summary, "loss 2 (twin 3) · test loss 0.04 (twin 0.05)");
}

// Merged buckets keep the last evaluation they saw, drawn at the bucket's centre.
TEST(LossCurves, MergedBucketKeepsItsLastEvaluation) {
    RunLog log(RunLogLimits{4, 2, 16});
    for (std::int64_t s = 1; s <= 4; ++s) {
        StepRecord r = loss_step(s, 1.0f, 1.0f);
        if (s <= 3) r.acc = 0.25f * static_cast<float>(s);
        log.append(r);
    }
    const LossCurves c = make_loss_curves(log.view(), false, 10);
    // Buckets (1-2) and (3-4): accuracy 0.5 at x 1.5, 0.75 at x 3.5.
    expect_points(c.accuracy[0].points, {{1.5, 0.5}, {3.5, 0.75}});
    EXPECT_EQ(c.summary, "loss 1 · acc 75.0%");
}

// Evaluations more than one per pixel column are thinned to the column's last:
// steps 1..8 evaluated on every step, axis 0..8 over 2 columns (0-4, 4-8).
TEST(LossCurves, EvaluationsAreThinnedToOnePerColumn) {
    RunLog log;
    for (std::int64_t s = 1; s <= 8; ++s) {
        StepRecord r = loss_step(s, 1.0f, 1.0f);
        r.acc = 0.125f * static_cast<float>(s);
        log.append(r);
    }
    const LossCurves c = make_loss_curves(log.view(), false, 2);
    // Steps 1-3 fall in column 0, 4-7 in column 1, 8 at the axis end in "column 2".
    expect_points(c.accuracy[0].points, {{3, 0.375}, {7, 0.875}, {8, 1.0}});
}

TEST(LossCurves, FlatLossGetsADecadeEachSide) {
    RunLog log;
    log.append(loss_step(1, 1.0f, 1.0f));
    log.append(loss_step(2, 1.0f, 1.0f));
    const LossCurves c = make_loss_curves(log.view(), true, 10);
    EXPECT_DOUBLE_EQ(c.loss_min, 0.1);
    EXPECT_DOUBLE_EQ(c.loss_max, 10.0);
    EXPECT_EQ(c.summary, "loss 1 (twin 1)");
}

TEST(LossCurves, NothingDrawableKeepsTheDefaults) {
    RunLog log;
    log.append(loss_step(1, std::numeric_limits<float>::quiet_NaN(), 0.0f));
    const LossCurves c = make_loss_curves(log.view(), true, 10);
    EXPECT_TRUE(c.loss[0].points.empty());
    EXPECT_TRUE(c.loss[1].points.empty());
    EXPECT_EQ(c.loss_min, 1e-3);
    EXPECT_EQ(c.loss_max, 1.0);
    EXPECT_EQ(c.step_min, 0.0);
    EXPECT_EQ(c.step_max, 1.0);
    EXPECT_EQ(c.summary, "loss NaN (twin 0)");  // never the C library's "-nan"
    ASSERT_EQ(c.marks.size(), 2u);
    EXPECT_EQ(c.marks[0].text, "NaN at step 1");
    EXPECT_TRUE(c.marks[0].top);
    EXPECT_EQ(c.marks[1].text, "twin: 0 at step 1");
    EXPECT_FALSE(c.marks[1].top);
    EXPECT_TRUE(c.marks[1].twin);
}

TEST(LossCurves, EmptyLog) {
    const RunLog log;
    const LossCurves c = make_loss_curves(log.view(), true, 10);
    ASSERT_EQ(c.loss.size(), 4u);
    ASSERT_EQ(c.accuracy.size(), 2u);
    for (const Curve& curve : c.loss) EXPECT_TRUE(curve.points.empty());
    EXPECT_EQ(c.step_min, 0.0);
    EXPECT_EQ(c.step_max, 1.0);
    EXPECT_EQ(c.summary, "no steps yet");
}

// A fork with no drawn loss yet leaves the run's axes alone; one with
// losses widens them to hold both.
TEST(LossCurves, AnEmptyForkLeavesTheRunsAxes) {
    const LossCurves run = make_loss_curves(eight_step_log().view(), true, 4);
    RunLog none;
    const LossCurves empty = make_loss_curves(none.view(), false, 4);
    const LossAxes a = loss_axes(run, empty);
    EXPECT_EQ(a.step_max, run.step_max);
    EXPECT_EQ(a.loss_min, run.loss_min);
    EXPECT_EQ(a.loss_max, run.loss_max);
    EXPECT_EQ(loss_axes(run, std::nullopt).loss_min, run.loss_min);
    RunLog fork;
    for (std::int64_t s = 5; s <= 12; ++s) fork.append(loss_step(s, 20.0f, 20.0f));
    const LossAxes b = loss_axes(run, make_loss_curves(fork.view(), false, 4));
    EXPECT_EQ(b.step_max, 12.0);
    EXPECT_DOUBLE_EQ(b.loss_max, 100.0);  // 20 needs the decade up to 10^2
    EXPECT_EQ(b.loss_min, run.loss_min);
}

}  // namespace
}  // namespace plab
