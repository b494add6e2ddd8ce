#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/train/run_log.h"

namespace plab {
namespace {

// ---------------------------------------------------------------------------
// A synthetic run whose every scalar is a closed form of the step, so the
// test can recompute any bucket of the decimated series plainly from steps.

bool overflow_at(std::int64_t step) {  // rare and irregular: about 70 in 10^6 steps
    return (step * 2654435761LL) % 99991 < 7;
}
float loss_at(std::int64_t step) {
    if (overflow_at(step)) return std::numeric_limits<float>::quiet_NaN();
    return static_cast<float>(std::sin(0.001 * static_cast<double>(step)) + 2.0);
}
float scale_at(std::int64_t step) { return std::ldexp(1.0f, static_cast<int>(step % 17)); }
bool growth_at(std::int64_t step) { return step % 1000 == 0; }
std::optional<float> acc_at(std::int64_t step) {
    if (step % 300 != 0) return std::nullopt;
    return static_cast<float>(step) * 1e-6f;
}

StepRecord record_at(std::int64_t step) {
    StepRecord r;
    r.step = step;
    r.loss = loss_at(step);
    r.loss_ref = static_cast<float>(step % 101);
    r.scale = scale_at(step);
    r.found_inf = overflow_at(step);
    r.skipped = r.found_inf;
    r.backoff = r.found_inf && step % 2 == 0;
    r.growth = growth_at(step);
    r.grad_norm = static_cast<float>(step % 7);
    r.acc = acc_at(step);
    r.layers.resize(3);
    for (int i = 0; i < 3; ++i) r.layers[i].weight.count = step * 3 + i;
    return r;
}

struct Bucket {  // what one series point must hold, recomputed step by step
    float loss_min = std::numeric_limits<float>::infinity();
    float loss_max = -std::numeric_limits<float>::infinity();
    float scale_min = std::numeric_limits<float>::infinity();
    float scale_max = -std::numeric_limits<float>::infinity();
    std::int64_t found_inf = 0;
    std::int64_t growths = 0;
    std::optional<float> acc;
};

Bucket reference_bucket(std::int64_t first, std::int64_t last) {
    Bucket b;
    for (std::int64_t s = first; s <= last; ++s) {
        if (!std::isnan(loss_at(s))) {
            b.loss_min = std::min(b.loss_min, loss_at(s));
            b.loss_max = std::max(b.loss_max, loss_at(s));
        }
        b.scale_min = std::min(b.scale_min, scale_at(s));
        b.scale_max = std::max(b.scale_max, scale_at(s));
        b.found_inf += overflow_at(s);
        b.growths += growth_at(s);
        if (acc_at(s)) b.acc = acc_at(s);
    }
    return b;
}

void expect_series_matches_reference(const std::vector<SeriesPoint>& series, std::int64_t stride,
                                     std::int64_t last_step) {
    ASSERT_FALSE(series.empty());
    EXPECT_EQ(series.front().first_step, 1);
    EXPECT_EQ(series.back().last_step, last_step);
    for (std::size_t i = 0; i < series.size(); ++i) {
        const SeriesPoint& p = series[i];
        if (i > 0) {
            ASSERT_EQ(p.first_step, series[i - 1].last_step + 1) << "point " << i;
        }
        ASSERT_EQ(p.records, p.last_step - p.first_step + 1) << "point " << i;
        if (i + 1 < series.size()) {
            ASSERT_EQ(p.records, stride) << "point " << i;
        } else {
            ASSERT_LE(p.records, stride);
        }
        const Bucket ref = reference_bucket(p.first_step, p.last_step);
        ASSERT_EQ(p.loss.min, ref.loss_min) << "point " << i;
        ASSERT_EQ(p.loss.max, ref.loss_max) << "point " << i;
        ASSERT_EQ(p.scale.min, ref.scale_min) << "point " << i;
        ASSERT_EQ(p.scale.max, ref.scale_max) << "point " << i;
        ASSERT_EQ(p.found_inf, ref.found_inf) << "point " << i;
        ASSERT_EQ(p.skipped, ref.found_inf) << "point " << i;
        ASSERT_EQ(p.growths, ref.growths) << "point " << i;
        ASSERT_EQ(p.acc, ref.acc) << "point " << i;
    }
}

TEST(RunLog, MillionStepsStayBoundedAndExact) {
    RunLogLimits limits;
    limits.recent = 1024;
    limits.series = 4096;
    RunLog log(limits);
    const std::int64_t n = 1'000'000;
    std::size_t memory_at_1e5 = 0;
    RunTotals ref;
    std::vector<std::int64_t> overflow_steps;
    for (std::int64_t s = 1; s <= n; ++s) {
        log.append(record_at(s));
        ref.steps += 1;
        ref.overflows += overflow_at(s);
        ref.backoffs += overflow_at(s) && s % 2 == 0;
        ref.growths += growth_at(s);
        if (overflow_at(s)) overflow_steps.push_back(s);
        if (overflow_at(s) && ref.first_nonfinite_step < 0) ref.first_nonfinite_step = s;
        if (s == 100'000) memory_at_1e5 = log.memory_bytes();
    }
    ref.skipped = ref.overflows;

    // Sizes at their caps, memory flat.
    EXPECT_EQ(log.recent().size(), limits.recent);
    EXPECT_LE(log.series().size(), limits.series);
    EXPECT_GT(log.series().size(), limits.series / 2);
    EXPECT_EQ(log.memory_bytes(), memory_at_1e5);
    const std::size_t record_floor = limits.recent * (sizeof(StepRecord) + 3 * sizeof(LayerRecord));
    EXPECT_GE(log.memory_bytes(), record_floor + limits.series * sizeof(SeriesPoint));
    EXPECT_LE(log.memory_bytes(), 2 * (record_floor + limits.series * sizeof(SeriesPoint)));

    // Totals exact.
    const RunTotals& t = log.totals();
    EXPECT_EQ(t.steps, ref.steps);
    EXPECT_EQ(t.overflows, ref.overflows);
    EXPECT_EQ(t.skipped, ref.skipped);
    EXPECT_EQ(t.backoffs, ref.backoffs);
    EXPECT_EQ(t.growths, ref.growths);
    EXPECT_EQ(t.first_nonfinite_step, ref.first_nonfinite_step);
    ASSERT_GT(overflow_steps.size(), 20u);  // the pattern does overflow, sparsely
    ASSERT_LT(overflow_steps.size(), 1000u);

    // The series: 10^6 steps in at most 4096 points means a stride of 256.
    EXPECT_EQ(log.series_stride(), 256);
    expect_series_matches_reference(log.series(), log.series_stride(), n);
    for (std::int64_t s : overflow_steps) {
        const SeriesPoint& p = log.series()[static_cast<std::size_t>((s - 1) / log.series_stride())];
        ASSERT_TRUE(p.first_step <= s && s <= p.last_step) << s;
        ASSERT_GT(p.found_inf, 0) << "overflow at step " << s << " lost from the series";
    }

    // The ring holds exactly the last K, oldest first.
    const auto recent = log.recent();
    for (std::size_t i = 0; i < recent.size(); ++i) {
        const std::int64_t step = n - static_cast<std::int64_t>(limits.recent) + 1 + static_cast<std::int64_t>(i);
        ASSERT_EQ(recent[i]->step, step);
        ASSERT_EQ(recent[i]->layers.size(), 3u);
        ASSERT_EQ(recent[i]->layers[2].weight.count, step * 3 + 2);
    }
    EXPECT_EQ(log.latest()->step, n);
    EXPECT_EQ(log.find(n - 1023)->step, n - 1023);
    EXPECT_EQ(log.find(n - 1024), nullptr);
    EXPECT_EQ(log.find(n + 1), nullptr);
}

TEST(RunLog, SeriesBeforeAndAcrossTheFirstMerge) {
    RunLogLimits limits;
    limits.recent = 4;
    limits.series = 8;
    RunLog log(limits);
    for (std::int64_t s = 1; s <= 8; ++s) log.append(record_at(s));
    EXPECT_EQ(log.series_stride(), 1);
    ASSERT_EQ(log.series().size(), 8u);
    expect_series_matches_reference(log.series(), 1, 8);
    log.append(record_at(9));  // full: pairs merge, then step 9 starts a new point
    EXPECT_EQ(log.series_stride(), 2);
    ASSERT_EQ(log.series().size(), 5u);
    expect_series_matches_reference(log.series(), 2, 9);
    for (std::int64_t s = 10; s <= 1000; ++s) log.append(record_at(s));
    expect_series_matches_reference(log.series(), log.series_stride(), 1000);
    EXPECT_EQ(log.series_stride(), 128);  // 1000 steps need 8 points of 128
}

TEST(RunLog, NanOnlyBucketAndInfinityStayVisible) {
    RunLogLimits limits;
    limits.series = 2;
    RunLog log(limits);
    StepRecord r;
    r.step = 1;
    r.loss = std::numeric_limits<float>::quiet_NaN();
    r.found_inf = true;
    log.append(r);
    EXPECT_TRUE(std::isnan(log.series()[0].loss.min));
    EXPECT_TRUE(std::isnan(log.series()[0].loss.max));
    r.step = 2;
    r.loss = std::numeric_limits<float>::infinity();
    r.found_inf = false;
    log.append(r);
    r.step = 3;
    r.loss = 1.5f;
    log.append(r);  // merges 1 and 2
    ASSERT_EQ(log.series().size(), 2u);
    EXPECT_EQ(log.series()[0].loss.max, std::numeric_limits<float>::infinity());
    EXPECT_EQ(log.series()[0].loss.min, std::numeric_limits<float>::infinity());
    EXPECT_EQ(log.series()[0].found_inf, 1);
    EXPECT_EQ(log.series()[1].loss.min, 1.5f);
    EXPECT_EQ(log.totals().first_nonfinite_step, 1);
}

TEST(RunLog, FirstNonFiniteCountsANonFiniteLossWithoutFoundInf) {
    RunLog log;
    StepRecord r;
    r.step = 5;
    log.append(r);
    r.step = 6;
    r.loss = std::numeric_limits<float>::infinity();
    log.append(r);
    EXPECT_EQ(log.totals().first_nonfinite_step, 6);
    EXPECT_EQ(log.totals().overflows, 0);
}

TEST(RunLog, StepsMustIncrease) {
    RunLog log;
    StepRecord r;
    r.step = 3;
    log.append(r);
    EXPECT_THROW(log.append(r), Error);
    r.step = 2;
    EXPECT_THROW(log.append(r), Error);
    EXPECT_EQ(log.totals().steps, 1);
    r.step = 7;  // gaps are allowed (a record per step is the Trainer's business)
    log.append(r);
    EXPECT_EQ(log.find(7)->step, 7);
    EXPECT_EQ(log.find(5), nullptr);
    EXPECT_EQ(log.find(3)->step, 3);
}

TEST(RunLog, RejectsBadLimits) {
    RunLogLimits odd;
    odd.series = 7;
    try {
        RunLog log(odd);
        FAIL() << "odd series capacity accepted";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "run_log.series: 7 is out of range; allowed an even number >= 2");
    }
    RunLogLimits no_ring;
    no_ring.recent = 0;
    EXPECT_THROW(RunLog{no_ring}, Error);
}

TEST(RunLog, EditsAreCappedAndTheCapIsAnError) {
    RunLogLimits limits;
    limits.edits = 3;
    RunLog log(limits);
    log.add_edit(0, "optimizer.lr=0.1");
    log.add_edit(4, "scaler.growth_interval=10");
    log.add_edit(4, "optimizer.lr=0.2");
    EXPECT_TRUE(log.edits_full());
    EXPECT_THROW(log.require_edit_room(), Error);
    try {
        log.add_edit(9, "optimizer.lr=0.3");
        FAIL() << "edit past the cap accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("live edits: 3 are recorded"), std::string::npos) << e.what();
    }
    ASSERT_EQ(log.edits().size(), 3u);
    EXPECT_EQ(log.edits()[2].step, 4);
    EXPECT_EQ(log.edits()[2].assignment, "optimizer.lr=0.2");
}

TEST(EditList, CopiesShareFullChunksAndStayFrozen) {
    EditList list;
    const std::size_t n = 3 * EditList::kChunk + 17;
    auto text = [](std::size_t i) { return "optimizer.lr=0.000" + std::to_string(i) + "-a-string-longer-than-sso"; };
    for (std::size_t i = 0; i < n; ++i) list.push_back(LiveEdit{static_cast<std::int64_t>(i / 2), text(i)});
    const EditList frozen = list;
    for (std::size_t i = n; i < 2 * n; ++i) list.push_back(LiveEdit{static_cast<std::int64_t>(i / 2), text(i)});
    ASSERT_EQ(frozen.size(), n);
    ASSERT_EQ(list.size(), 2 * n);
    for (std::size_t i = 0; i < 2 * n; ++i) {
        ASSERT_EQ(list[i].assignment, text(i)) << i;
        ASSERT_EQ(list[i].step, static_cast<std::int64_t>(i / 2)) << i;
        if (i < n) {
            ASSERT_EQ(frozen[i].assignment, text(i)) << i;
        }
    }
    EXPECT_GE(list.memory_bytes(), 2 * n * (sizeof(LiveEdit) + text(0).size()));
}

TEST(RunLogView, IsAnIndependentCopy) {
    RunLogLimits limits;
    limits.recent = 3;
    RunLog log(limits);
    for (std::int64_t s = 1; s <= 5; ++s) log.append(record_at(s));
    log.add_edit(5, "optimizer.lr=0.5");
    const RunLogView view = log.view();
    for (std::int64_t s = 6; s <= 9; ++s) log.append(record_at(s));
    log.add_edit(9, "optimizer.lr=0.25");
    ASSERT_EQ(view.recent.size(), 3u);
    EXPECT_EQ(view.latest()->step, 5);
    EXPECT_EQ(view.find(3)->step, 3);
    EXPECT_EQ(view.find(2), nullptr);
    EXPECT_EQ(view.totals.steps, 5);
    EXPECT_EQ(view.edits.size(), 1u);
    EXPECT_EQ(view.series.back().last_step, 5);
    EXPECT_EQ(log.latest()->step, 9);
}

}  // namespace
}  // namespace plab
