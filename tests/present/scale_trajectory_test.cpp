#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "tests/present/step_record_builders.h"
#include "ui/present/scale_trajectory.h"

namespace plab {
namespace {

using test::pow2;

// A step that used scale 2^k and left it at 2^k_after.
StepRecord scaled_step(std::int64_t step, int k, int k_after) { return test::scaled_step(step, k, k_after, 1.0f); }

StepRecord overflow_step(std::int64_t step, int k, bool skipped, bool backoff) {
    return test::overflow_step(step, k, skipped, backoff, 1.0f);
}

StepRecord growth_step(std::int64_t step, int k) {
    StepRecord r = scaled_step(step, k, k + 1);
    r.growth = true;
    return r;
}

RunConfig config_of(ScalerKind kind, int growth_interval = 2000) {
    RunConfig c;
    c.scaler.kind = kind;
    c.scaler.growth_interval = growth_interval;
    return c;
}

struct WantMarker {
    ScaleEventKind kind;
    double step;
    double log2_scale;
    std::string text;
};

void expect_markers(const std::vector<ScaleMarker>& got, const std::vector<WantMarker>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got[i].kind, want[i].kind) << "marker " << i;
        EXPECT_EQ(got[i].step, want[i].step) << "marker " << i;
        EXPECT_EQ(got[i].log2_scale, want[i].log2_scale) << "marker " << i;
        EXPECT_EQ(got[i].text, want[i].text) << "marker " << i;
    }
}

void expect_line(const std::vector<XY>& got, const std::vector<ColumnRange>& columns) {
    ASSERT_EQ(got.size(), 2 * columns.size());
    for (std::size_t i = 0; i < columns.size(); ++i) {
        EXPECT_EQ(got[2 * i].x, columns[i].x) << "column " << i;
        EXPECT_EQ(got[2 * i].y, columns[i].lo) << "column " << i;
        EXPECT_EQ(got[2 * i + 1].x, columns[i].x) << "column " << i;
        EXPECT_EQ(got[2 * i + 1].y, columns[i].hi) << "column " << i;
    }
}

// Twenty steps, one series point each (stride 1), drawn in ten columns two
// steps wide: column c holds steps 2c and 2c + 1 (step 20 the last column).
//   steps 1-4 at 2^16; 4 and 5 overflow and back off (to 2^15, then 2^14);
//   9 grows 2^14 -> 2^15; after step 12 an edit switches the scaler off, so
//   steps 13-20 use scale 1, and step 13 overflows unchecked (applied).
RunLog twenty_step_log() {
    RunLog log;
    log.add_edit(0, "scaler.init_scale=65536");
    for (std::int64_t s = 1; s <= 3; ++s) log.append(scaled_step(s, 16, 16));
    log.append(overflow_step(4, 16, true, true));
    log.append(overflow_step(5, 15, true, true));
    for (std::int64_t s = 6; s <= 8; ++s) log.append(scaled_step(s, 14, 14));
    log.append(growth_step(9, 14));
    for (std::int64_t s = 10; s <= 12; ++s) log.append(scaled_step(s, 15, 15));
    log.add_edit(12, "optimizer.lr=0.1");
    log.add_edit(12, "scaler.kind=none");
    log.append(overflow_step(13, 0, false, false));
    for (std::int64_t s = 14; s <= 20; ++s) {
        StepRecord r = scaled_step(s, 0, 0);
        r.growth_tracker = 7;  // the latest step's tracker is what the panel shows
        log.append(r);
    }
    return log;
}

TEST(ScaleTrajectory, LineAxesAndTotalsOfAShortRun) {
    const RunLog log = twenty_step_log();
    const ScaleTrajectory t = make_scale_trajectory(log.view(), config_of(ScalerKind::none), 10);
    EXPECT_EQ(t.step_min, 0.0);
    EXPECT_EQ(t.step_max, 20.0);
    EXPECT_EQ(t.log2_min, 0.0);
    EXPECT_EQ(t.log2_max, 16.0);
    expect_line(t.line, {{1, 16, 16},
                         {3, 16, 16},
                         {5, 15, 16},
                         {7, 14, 14},
                         {9, 14, 14},
                         {11, 15, 15},
                         {13, 0, 15},
                         {15, 0, 0},
                         {17, 0, 0},
                         {19, 0, 0}});
    EXPECT_EQ(t.growth_tracker, 7);
    EXPECT_EQ(t.growth_interval, 0);  // kind none does not grow
    EXPECT_EQ(t.growth_note, "no growth");
    EXPECT_EQ(t.summary, "scale 2^0 · 3 overflows · 2 backoffs · 1 growth");
}

TEST(ScaleTrajectory, MarkersMergePerColumn) {
    const RunLog log = twenty_step_log();
    const ScaleTrajectory t = make_scale_trajectory(log.view(), config_of(ScalerKind::none), 10);
    expect_markers(t.markers,
                   {
                       // Steps 4 and 5 share column 2: one marker each kind, at the first, as high as the highest.
                       {ScaleEventKind::overflow, 4, 16, "steps 4-5: 2 overflows, steps skipped"},
                       {ScaleEventKind::overflow, 13, 0, "step 13: overflow, step applied"},
                       {ScaleEventKind::backoff, 4, 16, "steps 4-5: 2 backoffs"},
                       {ScaleEventKind::growth, 9, 14, "step 9: growth"},
                       // The edit before step 1 sits at the scale of the nearest point, step 1's.
                       {ScaleEventKind::edit, 0, 16, "before step 1: scaler.init_scale=65536"},
                       // "optimizer.lr=0.1" is no scaler edit.
                       {ScaleEventKind::edit, 12, 15, "after step 12: scaler.kind=none"},
                   });
}

// Markers can be bucketed apart from the line: 10 line columns, one marker
// column for the whole 0..20 axis.
TEST(ScaleTrajectory, MarkerColumnsBucketTheMarkersOnly) {
    const RunLog log = twenty_step_log();
    const ScaleTrajectory fine = make_scale_trajectory(log.view(), config_of(ScalerKind::none), 10);
    const ScaleTrajectory coarse = make_scale_trajectory(log.view(), config_of(ScalerKind::none), 10, 1);
    EXPECT_EQ(coarse.line.size(), fine.line.size());
    for (std::size_t i = 0; i < fine.line.size(); ++i) {
        EXPECT_EQ(coarse.line[i].x, fine.line[i].x);
        EXPECT_EQ(coarse.line[i].y, fine.line[i].y);
    }
    std::size_t overflows = 0, edits = 0;
    for (const ScaleMarker& m : coarse.markers) {
        overflows += m.kind == ScaleEventKind::overflow;
        edits += m.kind == ScaleEventKind::edit;
    }
    EXPECT_EQ(overflows, 1u);  // steps 4-5 and 13 (two markers with 10 columns) in one
    EXPECT_EQ(edits, 1u);      // before step 1 and after step 12 likewise
    EXPECT_EQ(coarse.markers.size(), 4u);  // one per kind: overflow, backoff, growth, edit
}

TEST(ScaleTrajectory, WideEnoughPlotKeepsEveryEvent) {
    const RunLog log = twenty_step_log();
    const ScaleTrajectory t = make_scale_trajectory(log.view(), config_of(ScalerKind::none), 20);
    ASSERT_EQ(t.markers.size(), 8u);
    EXPECT_EQ(t.markers[0].text, "step 4: overflow, step skipped");
    EXPECT_EQ(t.markers[1].text, "step 5: overflow, step skipped");
    EXPECT_EQ(t.markers[1].log2_scale, 15.0);
    EXPECT_EQ(t.markers[3].text, "step 4: backoff");
    EXPECT_EQ(t.markers[4].text, "step 5: backoff");
}

// Series capacity 4 over 8 steps: the points merge pairwise into buckets
// (1-2), (3-4), (5-6), (7-8), each drawn at its centre.
TEST(ScaleTrajectory, MergedBucketsCountTheirEvents) {
    RunLog log(RunLogLimits{4, 4, 16});
    log.append(growth_step(1, 10));
    log.append(growth_step(2, 11));
    log.append(overflow_step(3, 12, true, true));
    log.append(overflow_step(4, 11, false, false));
    log.append(scaled_step(5, 11, 11));
    log.add_edit(5, "scaler.growth_interval=100");
    log.append(scaled_step(6, 11, 11));
    log.append(overflow_step(7, 11, true, true));
    log.append(scaled_step(8, 10, 10));
    const RunLogView view = log.view();
    ASSERT_EQ(view.series.size(), 4u);

    // 16 columns half a step wide: no two buckets share one.
    const ScaleTrajectory t = make_scale_trajectory(view, config_of(ScalerKind::dynamic, 100), 16);
    EXPECT_EQ(t.step_min, 0.0);
    EXPECT_EQ(t.step_max, 8.0);
    EXPECT_EQ(t.log2_min, 10.0);
    EXPECT_EQ(t.log2_max, 12.0);
    expect_line(t.line, {{1.75, 10, 11}, {3.75, 11, 12}, {5.75, 11, 11}, {7.75, 10, 11}});
    expect_markers(t.markers, {
                                  {ScaleEventKind::overflow, 3.5, 12, "steps 3-4: 2 overflows, 1 skipped"},
                                  {ScaleEventKind::overflow, 7.5, 11, "steps 7-8: 1 overflow, step skipped"},
                                  {ScaleEventKind::backoff, 3.5, 12, "steps 3-4: 1 backoff"},
                                  {ScaleEventKind::backoff, 7.5, 11, "steps 7-8: 1 backoff"},
                                  {ScaleEventKind::growth, 1.5, 11, "steps 1-2: 2 growths"},
                                  {ScaleEventKind::edit, 5, 11, "after step 5: scaler.growth_interval=100"},
                              });
    EXPECT_EQ(t.growth_interval, 100);
    EXPECT_EQ(t.summary, "scale 2^10 · 3 overflows · 2 backoffs · 2 growths");
}

TEST(ScaleTrajectory, ManyEditsInOneColumnListTheFirstThree) {
    RunLog log;
    for (std::int64_t s = 1; s <= 6; ++s) log.append(scaled_step(s, 8, 8));
    for (int i = 1; i <= 5; ++i) log.add_edit(i, "scaler.growth_interval=" + std::to_string(10 * i));
    const ScaleTrajectory t = make_scale_trajectory(log.view(), config_of(ScalerKind::dynamic), 1);
    expect_markers(t.markers, {{ScaleEventKind::edit, 1, 8,
                                "after steps 1-5: 5 edits: scaler.growth_interval=10; scaler.growth_interval=20; "
                                "scaler.growth_interval=30; +2 more"}});
}

// A fork's log starts after the fork step; edits it inherited from before
// are off its axis.
TEST(ScaleTrajectory, EditsBeforeTheAxisAreLeftOut) {
    RunLog log;
    log.add_edit(3, "scaler.init_scale=256");
    log.add_edit(10, "scaler.backoff_factor=0.25");
    for (std::int64_t s = 11; s <= 14; ++s) log.append(scaled_step(s, 4, 4));
    const ScaleTrajectory t = make_scale_trajectory(log.view(), config_of(ScalerKind::dynamic), 100);
    EXPECT_EQ(t.step_min, 10.0);
    EXPECT_EQ(t.step_max, 14.0);
    expect_markers(t.markers, {{ScaleEventKind::edit, 10, 4, "after step 10: scaler.backoff_factor=0.25"}});
}

TEST(ScaleTrajectory, FlatScaleIsCentredAndNamedAsAPower) {
    RunLog log;
    for (std::int64_t s = 1; s <= 3; ++s) log.append(scaled_step(s, 12, 12));
    const ScaleTrajectory t = make_scale_trajectory(log.view(), config_of(ScalerKind::static_scale), 300);
    EXPECT_EQ(t.log2_min, 11.0);
    EXPECT_EQ(t.log2_max, 13.0);
    EXPECT_EQ(t.growth_interval, 0);
    EXPECT_EQ(t.growth_note, "no growth");
    EXPECT_EQ(t.summary, "scale 2^12 · 0 overflows · 0 backoffs · 0 growths");
    EXPECT_TRUE(t.markers.empty());
}

TEST(ScaleTrajectory, ScaleThatIsNoPowerOfTwoIsADecimal) {
    RunLog log;
    StepRecord r = scaled_step(1, 16, 16);
    r.scale = r.scale_after = 98304.0f;  // 1.5 * 2^16
    log.append(r);
    StepRecord q = scaled_step(2, 0, 0);
    q.scale_after = 1.5f;
    const ScaleTrajectory first = make_scale_trajectory(log.view(), config_of(ScalerKind::hysteresis, 30), 10);
    EXPECT_EQ(first.summary, "scale 98304 · 0 overflows · 0 backoffs · 0 growths");
    EXPECT_EQ(first.growth_interval, 30);
    EXPECT_EQ(first.growth_note, "");
    // log2(98304) = 16.58...: bounds 16 and 17.
    EXPECT_EQ(first.log2_min, 16.0);
    EXPECT_EQ(first.log2_max, 17.0);
    log.append(q);
    EXPECT_EQ(make_scale_trajectory(log.view(), config_of(ScalerKind::dynamic), 10).summary,
              "scale 1.5 · 0 overflows · 0 backoffs · 0 growths");
}

TEST(ScaleTrajectory, OverflowKeySaysWhetherStepsAreSkipped) {
    RunLog log;
    EXPECT_EQ(make_scale_trajectory(log.view(), config_of(ScalerKind::dynamic), 10).overflow_key, "overflow (skipped)");
    EXPECT_EQ(make_scale_trajectory(log.view(), config_of(ScalerKind::static_scale), 10).overflow_key,
              "overflow (skipped)");
    EXPECT_EQ(make_scale_trajectory(log.view(), config_of(ScalerKind::none), 10).overflow_key,
              "overflow (applied anyway)");
}

TEST(ScaleTrajectory, EmptyLogKeepsTheDefaults) {
    RunLog log;
    log.add_edit(0, "scaler.init_scale=1024");
    const ScaleTrajectory t = make_scale_trajectory(log.view(), config_of(ScalerKind::dynamic, 500), 800);
    EXPECT_TRUE(t.line.empty());
    EXPECT_TRUE(t.markers.empty());
    EXPECT_EQ(t.step_min, 0.0);
    EXPECT_EQ(t.step_max, 1.0);
    EXPECT_EQ(t.log2_min, 0.0);
    EXPECT_EQ(t.log2_max, 1.0);
    EXPECT_EQ(t.growth_tracker, 0);
    EXPECT_EQ(t.growth_interval, 500);
    EXPECT_EQ(t.summary, "no steps yet");
}

TEST(ScaleTrajectory, ZeroWidthPlotGetsOneColumn) {
    const RunLog log = twenty_step_log();
    const ScaleTrajectory t = make_scale_trajectory(log.view(), config_of(ScalerKind::none), 0);
    expect_line(t.line, {{10, 0, 16}});
    ASSERT_EQ(t.markers.size(), 4u);  // overflow, backoff, growth, edit
    EXPECT_EQ(t.markers[0].text, "steps 4-13: 3 overflows, 2 skipped");
    EXPECT_EQ(t.markers[3].text, "after steps 0-12: 2 edits: scaler.init_scale=65536; scaler.kind=none");
}

// A fork with no step yet leaves the run's axes alone (its empty-log
// bounds would stretch a sawtooth at 2^14..2^17 down to 2^0); one with steps
// widens them to hold both.
TEST(ScaleTrajectory, AnEmptyForkLeavesTheRunsAxes) {
    ScaleTrajectory run;
    run.line = {{1, 16}, {1, 17}};
    run.step_min = 0, run.step_max = 600, run.log2_min = 14, run.log2_max = 17;
    const ScaleAxes alone = scale_axes(run, std::nullopt);
    const ScaleAxes empty = scale_axes(run, ScaleTrajectory{});
    for (const ScaleAxes& a : {alone, empty}) {
        EXPECT_EQ(a.step_max, 600.0);
        EXPECT_EQ(a.log2_min, 14.0);
        EXPECT_EQ(a.log2_max, 17.0);
    }
    ScaleTrajectory fork;
    fork.line = {{700, 10}, {700, 12}};
    fork.step_max = 800, fork.log2_min = 10, fork.log2_max = 12;
    const ScaleAxes both = scale_axes(run, fork);
    EXPECT_EQ(both.step_min, 0.0);
    EXPECT_EQ(both.step_max, 800.0);
    EXPECT_EQ(both.log2_min, 10.0);
    EXPECT_EQ(both.log2_max, 17.0);
}

// Markers about ten pixels wide, one column per 14 pixels: a 700-pixel plot
// has 50 marker columns, never none.
TEST(ScaleTrajectory, MarkerColumnsLeaveAGapBetweenMarkers) {
    EXPECT_EQ(marker_columns_for(700), 50);
    EXPECT_EQ(marker_columns_for(13), 1);
    EXPECT_EQ(marker_columns_for(0), 1);
}

}  // namespace
}  // namespace plab
