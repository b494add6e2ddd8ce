#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "tests/present/step_record_builders.h"
#include "ui/present/event_table.h"

namespace plab {
namespace {

const std::vector<std::string> kLayers = {"fc1", "fc2", "fc3"};

using test::pow2;

StepRecord plain_step(std::int64_t step, int k, int k_after) { return test::scaled_step(step, k, k_after, 0.5f); }

// Overflows here always name fc3 as the first non-finite layer.
StepRecord overflow_step(std::int64_t step, int k, bool skipped, bool backoff) {
    StepRecord r = test::overflow_step(step, k, skipped, backoff, 0.5f);
    r.first_nonfinite_layer = 2;
    return r;
}

StepRecord growth_step(std::int64_t step, int k) {
    StepRecord r = plain_step(step, k, k + 1);
    r.growth = true;
    return r;
}

struct WantRow {
    EventKind kind;
    std::int64_t step;
    std::string step_text;
    std::string event;
    std::string detail;
    std::int64_t count;
    bool from_series;
};

void expect_rows(const std::vector<EventRow>& got, const std::vector<WantRow>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got[i].kind, want[i].kind) << "row " << i;
        EXPECT_EQ(got[i].step, want[i].step) << "row " << i;
        EXPECT_EQ(got[i].step_text, want[i].step_text) << "row " << i;
        EXPECT_EQ(got[i].event, want[i].event) << "row " << i;
        EXPECT_EQ(got[i].detail, want[i].detail) << "row " << i;
        EXPECT_EQ(got[i].count, want[i].count) << "row " << i;
        EXPECT_EQ(got[i].from_series, want[i].from_series) << "row " << i;
    }
}

// Twenty-two steps in a log that keeps the last 4 records and 8 series
// points. The series ends as six points: 1-4, 5-8, 9-12, 13-16, 17-20, 21-22
// (stride 4 after two halvings); the recent window holds steps 19-22, so
// point 17-20 reaches into it and only its steps 17-18 are the series' to show.
//   1-2 at 2^10; 2 and 3 overflow and back off (2^10 -> 2^9 -> 2^8);
//   6 grows 2^8 -> 2^9; 9 overflows (skipped, no backoff), 10 overflows
//   applied, 11 overflows and backs off to 2^8; 17 overflows and backs off
//   to 2^7; 19 grows to 2^8; 21 has a NaN loss, overflows in fc3 and backs
//   off to 2^7. Edits after steps 0, 5, 18 and two after 21.
RunLog twenty_two_steps() {
    RunLog log(RunLogLimits{4, 8, 100});
    log.add_edit(0, "scaler.init_scale=1024");
    int k = 10;
    for (std::int64_t s = 1; s <= 22; ++s) {
        StepRecord r = plain_step(s, k, k);
        if (s == 2 || s == 3 || s == 11 || s == 17) r = overflow_step(s, k, true, true);
        if (s == 9) r = overflow_step(s, k, true, false);
        if (s == 10) r = overflow_step(s, k, false, false);
        if (s == 6 || s == 19) r = growth_step(s, k);
        if (s == 21) {
            r = overflow_step(s, k, true, true);
            r.loss = -std::numeric_limits<float>::quiet_NaN();  // the sign a NaN often carries, not shown
        }
        k = static_cast<int>(std::log2(r.scale_after));
        log.append(r);
        if (s == 5) log.add_edit(5, "optimizer.lr=0.1");
        if (s == 18) log.add_edit(18, "scaler.growth_interval=3");
        if (s == 21) {
            log.add_edit(21, "scaler.backoff_factor=0.25");
            log.add_edit(21, "scaler.hysteresis=2");
        }
    }
    return log;
}

TEST(EventTable, TwentyTwoStepsFromRecordsSeriesAndEditsNewestFirst) {
    const RunLog log = twenty_two_steps();
    const RunLogView view = log.view();
    // The layout the expectations below rest on.
    ASSERT_EQ(view.series.size(), 6u);
    ASSERT_EQ(view.series[4].first_step, 17);
    ASSERT_EQ(view.series[4].last_step, 20);
    ASSERT_EQ(view.recent.front()->step, 19);

    const EventTable t = make_event_table(view, kLayers, 100);
    expect_rows(t.rows, {
        {EventKind::edit, 21, "21", "edit", "scaler.hysteresis=2", 1, false},
        {EventKind::edit, 21, "21", "edit", "scaler.backoff_factor=0.25", 1, false},
        {EventKind::backoff, 21, "21", "backoff", "scale 2^8 -> 2^7", 1, false},
        {EventKind::overflow, 21, "21", "overflow", "first non-finite gradient in fc3 at scale 2^8, step skipped", 1,
         false},
        {EventKind::nonfinite, 21, "21", "non-finite loss", "loss nan at scale 2^8", 1, false},
        {EventKind::growth, 19, "19", "growth", "scale 2^7 -> 2^8", 1, false},
        {EventKind::edit, 18, "18", "edit", "scaler.growth_interval=3", 1, false},
        // Point 17-20 less steps 19-20 (the growth at 19 is listed above).
        {EventKind::backoff, 17, "17-18", "backoff", "", 1, true},
        {EventKind::overflow, 17, "17-18", "overflow", "step skipped", 1, true},
        {EventKind::backoff, 9, "9-12", "backoff", "scale 2^8 .. 2^9", 1, true},
        {EventKind::overflow, 9, "9-12", "3 overflows", "2 skipped, 1 applied; scale 2^8 .. 2^9", 3, true},
        {EventKind::growth, 5, "5-8", "growth", "scale 2^8 .. 2^9", 1, true},
        {EventKind::edit, 5, "5", "edit", "optimizer.lr=0.1", 1, false},
        {EventKind::backoff, 1, "1-4", "2 backoffs", "scale 2^8 .. 2^10", 2, true},
        {EventKind::overflow, 1, "1-4", "2 overflows", "all skipped; scale 2^8 .. 2^10", 2, true},
        {EventKind::edit, 0, "0", "edit", "scaler.init_scale=1024", 1, false},
    });
    EXPECT_EQ(t.matching, 16u);
    // Overflows at 2, 3, 9, 10, 11, 17, 21 (10 applied); backoffs at 2, 3, 11, 17, 21.
    EXPECT_EQ(t.counts[static_cast<std::size_t>(EventKind::overflow)], 7);
    EXPECT_EQ(t.counts[static_cast<std::size_t>(EventKind::backoff)], 5);
    EXPECT_EQ(t.counts[static_cast<std::size_t>(EventKind::growth)], 2);
    EXPECT_EQ(t.counts[static_cast<std::size_t>(EventKind::edit)], 5);
    EXPECT_EQ(t.counts[static_cast<std::size_t>(EventKind::nonfinite)], 1);
    EXPECT_EQ(t.skipped, 6);
    EXPECT_EQ(t.first_nonfinite_step, 2);
    EXPECT_EQ(t.summary,
              "7 overflows (6 skipped) · 5 backoffs · 2 growths · 5 edits · 1 non-finite loss in the last 4 steps"
              " · first non-finite at step 2");
}

TEST(EventTable, FilterKeepsTheKindsAskedForAndTheCounts) {
    const RunLog log = twenty_two_steps();
    const EventTable t =
        make_event_table(log.view(), kLayers, 100, event_bit(EventKind::growth) | event_bit(EventKind::nonfinite));
    expect_rows(t.rows, {
        {EventKind::nonfinite, 21, "21", "non-finite loss", "loss nan at scale 2^8", 1, false},
        {EventKind::growth, 19, "19", "growth", "scale 2^7 -> 2^8", 1, false},
        {EventKind::growth, 5, "5-8", "growth", "scale 2^8 .. 2^9", 1, true},
    });
    EXPECT_EQ(t.matching, 3u);
    EXPECT_EQ(t.counts[static_cast<std::size_t>(EventKind::overflow)], 7);
    EXPECT_EQ(t.counts[static_cast<std::size_t>(EventKind::edit)], 5);
}

TEST(EventTable, CapKeepsTheNewestRows) {
    const RunLog log = twenty_two_steps();
    const EventTable t = make_event_table(log.view(), kLayers, 3, event_bit(EventKind::overflow));
    expect_rows(t.rows, {
        {EventKind::overflow, 21, "21", "overflow", "first non-finite gradient in fc3 at scale 2^8, step skipped", 1,
         false},
        {EventKind::overflow, 17, "17-18", "overflow", "step skipped", 1, true},
        {EventKind::overflow, 9, "9-12", "3 overflows", "2 skipped, 1 applied; scale 2^8 .. 2^9", 3, true},
    });
    EXPECT_EQ(t.matching, 4u);
    EXPECT_TRUE(make_event_table(log.view(), kLayers, 0).rows.empty());
}

TEST(EventTable, EmptyLog) {
    const RunLog log;
    const EventTable t = make_event_table(log.view(), kLayers, 100);
    EXPECT_TRUE(t.rows.empty());
    EXPECT_EQ(t.matching, 0u);
    EXPECT_EQ(t.summary, "no steps yet");
    EXPECT_EQ(t.first_nonfinite_step, -1);
}

// Unnamed and unknown layers, an infinite loss that overflows nothing, an
// unchecked overflow, and a scale that is not a power of two.
TEST(EventTable, RecordDetails) {
    RunLog log;
    StepRecord a = overflow_step(1, 4, false, false);
    a.first_nonfinite_layer = 7;
    StepRecord b = overflow_step(2, 4, true, false);
    b.first_nonfinite_layer = -1;
    StepRecord c = plain_step(3, 4, 4);
    c.loss = -std::numeric_limits<float>::infinity();
    StepRecord d = plain_step(4, 0, 0);
    d.scale = 1.5f;
    d.scale_after = 2.25f;
    d.growth = true;
    for (const StepRecord& r : {a, b, c, d}) log.append(r);
    const EventTable t = make_event_table(log.view(), kLayers, 100);
    expect_rows(t.rows, {
        {EventKind::growth, 4, "4", "growth", "scale 1.5 -> 2.25", 1, false},
        {EventKind::nonfinite, 3, "3", "non-finite loss", "loss -inf at scale 2^4", 1, false},
        {EventKind::overflow, 2, "2", "overflow", "non-finite gradient at scale 2^4, step skipped", 1, false},
        {EventKind::overflow, 1, "1", "overflow", "first non-finite gradient in layer 7 at scale 2^4, step applied", 1,
         false},
    });
    EXPECT_EQ(t.summary, "2 overflows (1 skipped) · 0 backoffs · 1 growth · 0 edits · 1 non-finite loss"
                         " · first non-finite at step 1");
}

// Over a long run with tiny limits the rows still account for every event:
// their counts per kind add up to the log's own totals.
TEST(EventTable, RowsAccountForEveryEventOfALongRun) {
    RunLog log(RunLogLimits{16, 8, 100});
    std::mt19937 rng(7);
    std::int64_t overflows = 0, backoffs = 0, growths = 0;
    for (std::int64_t s = 1; s <= 1000; ++s) {
        const unsigned roll = rng() % 10;
        StepRecord r = roll == 0   ? overflow_step(s, 10, true, true)
                       : roll == 1 ? overflow_step(s, 10, true, false)
                       : roll == 2 ? growth_step(s, 10)
                                   : plain_step(s, 10, 10);
        overflows += r.found_inf;
        backoffs += r.backoff;
        growths += r.growth;
        log.append(r);
    }
    const EventTable t = make_event_table(log.view(), kLayers, 100000);
    std::int64_t sum[kEventKindCount] = {};
    std::int64_t last = std::numeric_limits<std::int64_t>::max();
    for (const EventRow& row : t.rows) {
        sum[static_cast<std::size_t>(row.kind)] += row.count;
        EXPECT_LE(row.last_step, last);  // newest first
        last = row.last_step;
    }
    EXPECT_EQ(sum[static_cast<std::size_t>(EventKind::overflow)], overflows);
    EXPECT_EQ(sum[static_cast<std::size_t>(EventKind::backoff)], backoffs);
    EXPECT_EQ(sum[static_cast<std::size_t>(EventKind::growth)], growths);
}

TEST(EventTable, KindNames) {
    EXPECT_EQ(event_kind_name(EventKind::overflow), "overflow");
    EXPECT_EQ(event_kind_name(EventKind::nonfinite), "non-finite loss");
    EXPECT_EQ(kAllEventKinds, 0x1fu);
}

}  // namespace
}  // namespace plab
