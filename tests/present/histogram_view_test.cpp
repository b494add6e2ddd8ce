#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "ui/present/histogram_view.h"

namespace plab {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNan = std::numeric_limits<float>::quiet_NaN();

double pow2(int e) { return std::ldexp(1.0, e); }
float pow2f(int e) { return std::ldexp(1.0f, e); }

// The bin a power of two 2^e lands in: 4 bins per binade from 2^-64.
constexpr int bin_of_power(int e) { return (e + 64) * 4; }

Log2Histogram histogram_of(const std::vector<float>& values, double divisor = 1.0) {
    Log2Histogram h;
    add_to_histogram(values.data(), values.size(), divisor, h);
    return h;
}

HistogramView view_of(const Log2Histogram& hist, std::span<const FormatId> formats = {}) {
    LayerHistograms h;
    h.weight = hist;
    return make_histogram_view(h, "fc1", HistTensor::weight, false, 1.0f, formats);
}

TEST(HistogramView, BarsSpanTheNonEmptyBinsWithOneEmptyBinEachSide) {
    // 2^-20 and 1.1 * 2^-20 share bin 176; 2^-18 is bin 184.
    const std::vector<float> values = {pow2f(-20), pow2f(-20), 1.1f * pow2f(-20), pow2f(-18), 0.0f, kNan, kInf, -kInf};
    const HistogramView v = view_of(histogram_of(values));
    ASSERT_EQ(v.bars.size(), 11u);  // bins 175 .. 185
    EXPECT_EQ(v.bars.front().log2_lo, -20.25);
    EXPECT_EQ(v.bars.front().log2_hi, -20.0);
    EXPECT_EQ(v.bars.front().count, 0);
    EXPECT_EQ(v.bars[1].log2_lo, -20.0);
    EXPECT_EQ(v.bars[1].log2_hi, -19.75);
    EXPECT_EQ(v.bars[1].count, 3);
    EXPECT_DOUBLE_EQ(v.bars[1].fraction, 3.0 / 8.0);
    for (int i = 2; i < 9; ++i) EXPECT_EQ(v.bars[static_cast<std::size_t>(i)].count, 0) << i;
    EXPECT_EQ(v.bars[9].log2_lo, -18.0);
    EXPECT_EQ(v.bars[9].count, 1);
    EXPECT_DOUBLE_EQ(v.bars[9].fraction, 1.0 / 8.0);
    EXPECT_EQ(v.bars.back().log2_lo, -17.75);
    EXPECT_EQ(v.bars.back().count, 0);
    EXPECT_EQ(v.zeros, 1);
    EXPECT_EQ(v.nans, 1);
    EXPECT_EQ(v.infs, 2);
    EXPECT_EQ(v.total, 8);
    EXPECT_DOUBLE_EQ(v.y_max, 3.0 / 8.0);
    // Bars cover -20.25 .. -17.5: whole binades with one binade of margin.
    EXPECT_EQ(v.x_min, -22.0);
    EXPECT_EQ(v.x_max, -16.0);
}

TEST(HistogramView, KnownValueLandsInItsBin) {
    const HistogramView v = view_of(histogram_of({pow2f(-20)}));
    ASSERT_EQ(v.bars.size(), 3u);
    EXPECT_EQ(v.bars[1].log2_lo, Log2Histogram::bin_low_log2(bin_of_power(-20)));
    EXPECT_EQ(v.bars[1].log2_lo, -20.0);
    EXPECT_EQ(v.bars[1].count, 1);
    EXPECT_EQ(v.bars[1].fraction, 1.0);
    EXPECT_EQ(v.y_max, 1.0);
}

TEST(HistogramView, PaddingStopsAtTheClampingBins) {
    // 2^-64 is bin 0 and 2^31.75 the last bin: no padding beyond either end.
    const HistogramView low = view_of(histogram_of({pow2f(-64)}));
    ASSERT_EQ(low.bars.size(), 2u);
    EXPECT_EQ(low.bars[0].log2_lo, -64.0);
    EXPECT_EQ(low.bars[0].count, 1);
    EXPECT_EQ(low.bars[1].count, 0);
    EXPECT_EQ(low.x_min, -65.0);

    const HistogramView high = view_of(histogram_of({1e30f}));  // clamps into the last bin
    ASSERT_EQ(high.bars.size(), 2u);
    EXPECT_EQ(high.bars[0].count, 0);
    EXPECT_EQ(high.bars[1].log2_lo, 31.75);
    EXPECT_EQ(high.bars[1].log2_hi, 32.0);
    EXPECT_EQ(high.bars[1].count, 1);
    EXPECT_EQ(high.x_max, 33.0);
}

TEST(HistogramView, EmptyHistogramHasNoBars) {
    const HistogramView v = view_of(Log2Histogram{});
    EXPECT_TRUE(v.bars.empty());
    EXPECT_EQ(v.total, 0);
    EXPECT_EQ(v.y_max, 1.0);
    EXPECT_EQ(v.x_min, -30.0);
    EXPECT_EQ(v.x_max, 10.0);

    // Only zeros and NaN: counted in the total, still no bars.
    const HistogramView zeros = view_of(histogram_of({0.0f, -0.0f, kNan}));
    EXPECT_TRUE(zeros.bars.empty());
    EXPECT_EQ(zeros.zeros, 2);
    EXPECT_EQ(zeros.total, 3);
    EXPECT_EQ(zeros.y_max, 1.0);

    // With a band, the axis covers the band: FP16 from 2^-25 to 65520 (< 2^16).
    const std::vector<FormatId> fp16 = {FormatId::fp16};
    const HistogramView banded = view_of(Log2Histogram{}, fp16);
    EXPECT_EQ(banded.x_min, -26.0);
    EXPECT_EQ(banded.x_max, 17.0);
}

// An embedding table is a telemetry layer without an activation: its
// activation views are empty and say why, its gradient's are not.
TEST(HistogramView, ATableHasNoActivationToShow) {
    LayerHistograms h;
    h.grad = histogram_of({pow2f(-30), 0.0f});
    for (HistTensor t : {HistTensor::act, HistTensor::act_grad})
        EXPECT_EQ(make_histogram_view(h, "wpe", t, false, 1.0f, {}).empty_note,
                  "no activation (a table)");
    EXPECT_EQ(make_histogram_view(h, "wpe", HistTensor::grad, false, 1.0f, {}).empty_note, "");
    LayerRecord table;
    table.grad.count = 2;
    EXPECT_TRUE(layer_holds(table, HistTensor::grad));
    EXPECT_TRUE(layer_holds(table, HistTensor::weight));
    EXPECT_FALSE(layer_holds(table, HistTensor::act));
    EXPECT_FALSE(layer_holds(table, HistTensor::act_grad));
    LayerRecord matmul = table;
    matmul.act.count = 8;
    EXPECT_TRUE(layer_holds(matmul, HistTensor::act_grad));
}

TEST(HistogramView, NoBarsSaysWhatTheValuesWere) {
    EXPECT_EQ(view_of(Log2Histogram{}).empty_note, "no values");
    EXPECT_EQ(view_of(histogram_of({kNan, kNan})).empty_note, "no finite non-zero values: 100% NaN");
    EXPECT_EQ(view_of(histogram_of({0.0f, -0.0f, kNan})).empty_note,
              "no finite non-zero values: 66.7% zero, 33.3% NaN");
    const float inf = std::numeric_limits<float>::infinity();
    EXPECT_EQ(view_of(histogram_of({0.0f, inf, -inf, 0.0f})).empty_note, "no finite non-zero values: 50% zero, 50% Inf");
    EXPECT_EQ(view_of(histogram_of({0.0f, 1.0f})).empty_note, "");  // a bar: nothing to explain
}

// One distinct power of two per tensor, so the bar shows which histogram was picked.
LayerHistograms tagged_histograms() {
    LayerHistograms h;
    h.weight = histogram_of({pow2f(-1)});
    h.grad = histogram_of({pow2f(-2)});
    h.grad_unscaled = histogram_of({pow2f(-3)});
    h.act = histogram_of({pow2f(-4)});
    h.act_grad = histogram_of({pow2f(-5)});
    h.act_grad_unscaled = histogram_of({pow2f(-6)});
    return h;
}

double picked_power(const HistogramView& v) { return v.bars.at(1).log2_lo; }

TEST(HistogramView, PicksTheTensorAndView) {
    const LayerHistograms h = tagged_histograms();
    const float scale = 65536.0f;
    const std::span<const FormatId> none;
    struct Case {
        HistTensor tensor;
        bool unscaled;
        double power;
        const char* title;
        double shift;
    };
    const Case cases[] = {
        {HistTensor::weight, false, -1, "fc2 \u00b7 weight", 0},
        {HistTensor::weight, true, -1, "fc2 \u00b7 weight", 0},
        {HistTensor::grad, false, -2, "fc2 \u00b7 weight grad \u00b7 scaled", 0},
        {HistTensor::grad, true, -3, "fc2 \u00b7 weight grad \u00b7 unscaled", 16},
        {HistTensor::act, false, -4, "fc2 \u00b7 activation", 0},
        {HistTensor::act, true, -4, "fc2 \u00b7 activation", 0},
        {HistTensor::act_grad, false, -5, "fc2 \u00b7 activation grad \u00b7 scaled", 0},
        {HistTensor::act_grad, true, -6, "fc2 \u00b7 activation grad \u00b7 unscaled", 16},
    };
    for (const Case& c : cases) {
        const HistogramView v = make_histogram_view(h, "fc2", c.tensor, c.unscaled, scale, none);
        EXPECT_EQ(picked_power(v), c.power) << c.title;
        EXPECT_EQ(v.title, c.title);
        EXPECT_EQ(v.shift_log2, c.shift) << c.title;
    }
}

TEST(HistogramView, UnscaledViewLiesLog2ScaleBinadesLeft) {
    // Gradients of 1 as held, unscaled by 2^16: 2^-16, bin 192.
    const std::vector<float> grads = {1.0f, 1.0f};
    LayerHistograms h;
    add_to_histogram_pair(grads.data(), grads.size(), pow2(16), h.grad, h.grad_unscaled);
    const std::span<const FormatId> none;
    const HistogramView held = make_histogram_view(h, "fc1", HistTensor::grad, false, 65536.0f, none);
    const HistogramView unscaled = make_histogram_view(h, "fc1", HistTensor::grad, true, 65536.0f, none);
    EXPECT_EQ(held.bars.at(1).log2_lo, 0.0);
    EXPECT_EQ(unscaled.bars.at(1).log2_lo, Log2Histogram::bin_low_log2(bin_of_power(-16)));
    EXPECT_EQ(unscaled.bars.at(1).log2_lo, -16.0);
    EXPECT_EQ(unscaled.shift_log2, 16.0);
    EXPECT_EQ(held.bars.at(1).log2_lo - unscaled.bars.at(1).log2_lo, unscaled.shift_log2);
    const HistogramView odd = make_histogram_view(h, "fc1", HistTensor::grad, true, 3.0f, none);
    EXPECT_DOUBLE_EQ(odd.shift_log2, std::log2(3.0));
}

struct ExpectedBand {
    FormatId format;
    const char* label;
    double nonzero, normal, overflow;  // the midpoints, from the format's closed forms
};

TEST(HistogramView, BandsAreTheExactRoundingMidpoints) {
    const ExpectedBand expected[] = {
        // Half the smallest subnormal; halfway from the largest subnormal to the
        // smallest normal; the largest finite value plus half its ulp.
        {FormatId::fp16, "FP16", pow2(-25), pow2(-14) - pow2(-25), 65520.0},
        {FormatId::bf16, "BF16", pow2(-134), pow2(-126) - pow2(-134), pow2(128) - pow2(119)},
        {FormatId::e4m3, "E4M3", pow2(-10), pow2(-6) - pow2(-10), 464.0},
        {FormatId::e5m2, "E5M2", pow2(-17), pow2(-14) - pow2(-17), 61440.0},
        {FormatId::tf32, "TF32", pow2(-137), pow2(-126) - pow2(-137), pow2(128) - pow2(116)},
        {FormatId::fp32, "FP32", pow2(-150), pow2(-126) - pow2(-150), pow2(128) - pow2(103)},
    };
    std::vector<FormatId> formats;
    for (const ExpectedBand& e : expected) formats.push_back(e.format);
    const HistogramView v = view_of(histogram_of({1.0f}), formats);
    ASSERT_EQ(v.bands.size(), formats.size());
    for (std::size_t i = 0; i < formats.size(); ++i) {
        const FormatBand& b = v.bands[i];
        const ExpectedBand& e = expected[i];
        EXPECT_EQ(b.format, e.format);
        EXPECT_EQ(b.label, e.label);
        EXPECT_EQ(b.log2_nonzero, std::log2(e.nonzero)) << e.label;
        EXPECT_EQ(b.log2_normal, std::log2(e.normal)) << e.label;
        EXPECT_EQ(b.log2_overflow, std::log2(e.overflow)) << e.label;
    }
    EXPECT_EQ(v.bands[0].log2_nonzero, -25.0);
    // The bars span [-0.25, 0.5); of all edges only E4M3's lie within 12
    // binades of them: 2^-10 and 464 (log2 8.86), so the axis runs -11..10.
    EXPECT_EQ(v.x_min, -11.0);
    EXPECT_EQ(v.x_max, 10.0);
    // Without bars the axis takes every edge: FP32's band from 2^-150 to just under 2^128.
    const HistogramView empty = view_of(Log2Histogram{}, formats);
    EXPECT_EQ(empty.x_min, -151.0);
    EXPECT_EQ(empty.x_max, 129.0);
}

TEST(HistogramView, BandsStayPutInTheUnscaledView) {
    LayerHistograms h;
    h.grad_unscaled = histogram_of({pow2f(-30)});
    const std::vector<FormatId> fp16 = {FormatId::fp16};
    const HistogramView v = make_histogram_view(h, "fc1", HistTensor::grad, true, 1024.0f, fp16);
    ASSERT_EQ(v.bands.size(), 1u);
    EXPECT_EQ(v.bands[0].log2_nonzero, -25.0);
    EXPECT_EQ(v.bands[0].log2_overflow, std::log2(65520.0));
    EXPECT_EQ(v.shift_log2, 10.0);
    // The bars span [-30.25, -29.5); FP16's flush edge 2^-25 is within 12
    // binades of them, its normal edge 2^-14 and overflow 65520 are not.
    EXPECT_EQ(v.x_min, -32.0);
    EXPECT_EQ(v.x_max, -24.0);
}

// Hand-classified against FP16: 3 flush to zero, 3 land subnormal, 2 overflow,
// 4 normal (65504 is FP16's max), 2 zeros, 1 NaN, 2 Inf: 17 values.
const std::vector<float> kCrafted = {1e-8f, 2e-8f,  -1e-9f, 1e-6f,  3e-5f,  -5e-7f, 7e4f, -1e5f, 1.0f,
                                     0.5f,  100.0f, 65504.0f, 0.0f, -0.0f, kNan,   kInf, -kInf};

TEST(HistCounters, PercentOfCountAgainstHandCounts) {
    const TensorStats s = compute_tensor_stats(kCrafted.data(), kCrafted.size());
    ASSERT_EQ(s.count, 17);
    const double pct = 100.0 / 17.0;
    const double tol = 1e-5;  // range fractions are stored as float

    const HistCounters fp16 = make_hist_counters(s, FormatId::fp16);
    EXPECT_DOUBLE_EQ(fp16.zero, 2 * pct);
    EXPECT_NEAR(fp16.underflow, 3 * pct, tol);
    EXPECT_NEAR(fp16.subnormal, 3 * pct, tol);
    EXPECT_NEAR(fp16.overflow, 2 * pct, tol);
    EXPECT_DOUBLE_EQ(fp16.nan, 1 * pct);
    EXPECT_DOUBLE_EQ(fp16.inf, 2 * pct);

    // BF16 has FP32's exponent range: nothing here leaves it.
    const HistCounters bf16 = make_hist_counters(s, FormatId::bf16);
    EXPECT_EQ(bf16.underflow, 0.0);
    EXPECT_EQ(bf16.subnormal, 0.0);
    EXPECT_EQ(bf16.overflow, 0.0);
    EXPECT_DOUBLE_EQ(bf16.zero, 2 * pct);

    // E4M3: everything below 2^-10 flushes (6 values), 7e4, 1e5 and 65504 exceed 464.
    const HistCounters e4m3 = make_hist_counters(s, FormatId::e4m3);
    EXPECT_NEAR(e4m3.underflow, 6 * pct, tol);
    EXPECT_EQ(e4m3.subnormal, 0.0);
    EXPECT_NEAR(e4m3.overflow, 3 * pct, tol);

    // E5M2 (smallest subnormal 2^-16, nonzero from 2^-17 ~ 7.6e-6): 1e-6, 5e-7 and
    // the three FP16 underflows flush; 3e-5 is subnormal; 7e4, 1e5 and 65504 exceed 61440.
    const HistCounters e5m2 = make_hist_counters(s, FormatId::e5m2);
    EXPECT_NEAR(e5m2.underflow, 5 * pct, tol);
    EXPECT_NEAR(e5m2.subnormal, 1 * pct, tol);
    EXPECT_NEAR(e5m2.overflow, 3 * pct, tol);
}

TEST(HistCounters, FormatsOutsideTelemetryReportNoRangeLosses) {
    const TensorStats s = compute_tensor_stats(kCrafted.data(), kCrafted.size());
    for (FormatId f : {FormatId::fp32, FormatId::tf32}) {
        const HistCounters c = make_hist_counters(s, f);
        EXPECT_EQ(c.underflow, 0.0);
        EXPECT_EQ(c.subnormal, 0.0);
        EXPECT_EQ(c.overflow, 0.0);
        EXPECT_DOUBLE_EQ(c.zero, 200.0 / 17.0);
        EXPECT_DOUBLE_EQ(c.nan, 100.0 / 17.0);
        EXPECT_DOUBLE_EQ(c.inf, 200.0 / 17.0);
    }
}

TEST(HistCounters, EmptyTensorIsAllZero) {
    const HistCounters c = make_hist_counters(TensorStats{}, FormatId::fp16);
    EXPECT_EQ(c.zero, 0.0);
    EXPECT_EQ(c.underflow, 0.0);
    EXPECT_EQ(c.subnormal, 0.0);
    EXPECT_EQ(c.overflow, 0.0);
    EXPECT_EQ(c.nan, 0.0);
    EXPECT_EQ(c.inf, 0.0);
}

// The twin's values where the run has only zeros (FP16 flushed them): the
// ghost spans their bins as the bars would, and the x range and y top take
// it in, so the lost mass shows left of the FP16 band.
TEST(HistogramView, GhostIsTheTwinsHistogramOfTheSameView) {
    LayerHistograms run, twin;
    run.grad = histogram_of({0.0f, 0.0f, 0.0f, 0.0f});
    twin.grad = histogram_of({pow2f(-40), pow2f(-40), pow2f(-36), 0.0f});
    twin.grad_unscaled = histogram_of({pow2f(-10)});
    const FormatId fp16[] = {FormatId::fp16};
    const HistogramView v = make_histogram_view(run, "fc1", HistTensor::grad, false, 1.0f, fp16, &twin);
    EXPECT_TRUE(v.bars.empty());
    EXPECT_EQ(v.empty_note, "no finite non-zero values: 100% zero");
    ASSERT_EQ(v.ghost.size(), 19u);  // bins of 2^-40 .. 2^-36, one empty bin each side
    EXPECT_EQ(v.ghost.front().log2_lo, -40.25);
    EXPECT_EQ(v.ghost[1].log2_lo, -40.0);
    EXPECT_EQ(v.ghost[1].count, 2);
    EXPECT_DOUBLE_EQ(v.ghost[1].fraction, 2.0 / 4.0);  // of the twin's four values
    EXPECT_EQ(v.ghost[17].log2_lo, -36.0);
    EXPECT_DOUBLE_EQ(v.ghost[17].fraction, 1.0 / 4.0);
    EXPECT_DOUBLE_EQ(v.y_max, 0.5);
    // The ghost from -40.25 to -35.75 and FP16's flush edge -25, within 12 binades of it (its normal edge
    // -14 is not), one binade of margin.
    EXPECT_EQ(v.x_min, -42.0);
    EXPECT_EQ(v.x_max, -24.0);
    // The unscaled view takes the twin's unscaled histogram; no twin, no ghost.
    const HistogramView unscaled = make_histogram_view(run, "fc1", HistTensor::grad, true, 1.0f, fp16, &twin);
    ASSERT_EQ(unscaled.ghost.size(), 3u);
    EXPECT_EQ(unscaled.ghost[1].log2_lo, -10.0);
    EXPECT_TRUE(make_histogram_view(run, "fc1", HistTensor::grad, false, 1.0f, fp16).ghost.empty());
}

// All layers on one x range: a layer of zeros alone (no bars, no twin) spans
// every band edge, -135..129 with BF16; it must not widen the others' range.
TEST(HistogramView, SharedRangeLeavesOutViewsThatDrawNothing) {
    const FormatId bands[] = {FormatId::fp16, FormatId::bf16};
    LayerHistograms a, b, zeros;
    a.weight = histogram_of({pow2f(-20)});
    b.weight = histogram_of({pow2f(-4)});
    zeros.weight = histogram_of({0.0f});
    const auto view = [&](const LayerHistograms& h) {
        return make_histogram_view(h, "fc", HistTensor::weight, false, 1.0f, bands);
    };
    const HistogramView empty = view(zeros);
    ASSERT_LT(empty.x_min, -130.0);
    const std::vector<HistogramView> views = {view(a), empty, view(b)};
    const auto [lo, hi] = shared_x_range(views);
    EXPECT_EQ(lo, views[0].x_min);
    EXPECT_EQ(hi, views[2].x_max);
    EXPECT_GT(lo, -40.0);
    // Nothing drawn anywhere: the empty views' own range.
    const std::vector<HistogramView> only_empty = {empty};
    EXPECT_EQ(shared_x_range(only_empty), std::pair(empty.x_min, empty.x_max));
}

TEST(HistCounters, TwinFlushIsTheTwinsUnderflowShare) {
    // The run holds zeros where the twin holds 2^-30 (flushed by FP16 and E4M3) and 2^-20 (FP16 subnormal).
    const std::vector<float> run_values = {0.0f, 0.0f, pow2f(-20), 1.0f};
    const std::vector<float> twin_values = {pow2f(-30), pow2f(-30), pow2f(-20), 1.0f};
    const TensorStats run = compute_tensor_stats(run_values.data(), run_values.size());
    const TensorStats twin = compute_tensor_stats(twin_values.data(), twin_values.size());
    const HistCounters fp16 = make_hist_counters(run, FormatId::fp16, &twin);
    EXPECT_EQ(fp16.underflow, 0.0);
    EXPECT_EQ(fp16.zero, 50.0);
    ASSERT_TRUE(fp16.twin_flush.has_value());
    EXPECT_EQ(*fp16.twin_flush, 50.0);
    EXPECT_EQ(*make_hist_counters(run, FormatId::e4m3, &twin).twin_flush, 75.0);
    EXPECT_EQ(*make_hist_counters(run, FormatId::bf16, &twin).twin_flush, 0.0);
    // No twin, a format telemetry does not measure, or a twin view without values: no share.
    EXPECT_FALSE(make_hist_counters(run, FormatId::fp16).twin_flush.has_value());
    EXPECT_FALSE(make_hist_counters(run, FormatId::fp32, &twin).twin_flush.has_value());
    const TensorStats empty;
    EXPECT_FALSE(make_hist_counters(run, FormatId::fp16, &empty).twin_flush.has_value());
}

HistBar bar(double lo, std::int64_t count, double fraction) { return {lo, lo + 0.25, count, fraction}; }

TEST(BarTooltip, PowersDecimalsCountAndPercent) {
    EXPECT_EQ(bar_tooltip(bar(-14.25, 312, 0.038)), "2^-14.25 .. 2^-14 (5.1e-05 .. 6.1e-05): 312 values, 3.8%");
    EXPECT_EQ(bar_tooltip(bar(-1, 1, 0.5)), "2^-1 .. 2^-0.75 (0.5 .. 0.59): 1 value, 50.0%");
    EXPECT_EQ(bar_tooltip(bar(-0.5, 0, 0)), "2^-0.5 .. 2^-0.25 (0.71 .. 0.84): 0 values, 0.0%");
    EXPECT_EQ(bar_tooltip(bar(0, 7, 1.0)), "2^0 .. 2^0.25 (1 .. 1.2): 7 values, 100.0%");
    EXPECT_EQ(bar_tooltip(bar(15.75, 2, 0.012)), "2^15.75 .. 2^16 (5.5e+04 .. 6.6e+04): 2 values, 1.2%");
}

TEST(BarTooltip, ClampingBinsSayTheyHoldEverythingBeyond) {
    EXPECT_EQ(bar_tooltip(bar(-64, 4, 0.25)), "below 2^-63.75 (6.4e-20): 4 values, 25.0%");
    EXPECT_EQ(bar_tooltip(bar(31.75, 3, 0.75)), "2^31.75 and above (3.6e+09): 3 values, 75.0%");
}

TEST(BarTooltip, OfABarFromAView) {
    const HistogramView v = view_of(histogram_of({pow2f(-20), pow2f(-20), pow2f(-20), 0.0f, 0.0f, 0.0f, 0.0f, 0.0f}));
    ASSERT_EQ(v.bars.size(), 3u);
    EXPECT_EQ(bar_tooltip(v.bars[1]), "2^-20 .. 2^-19.75 (9.5e-07 .. 1.1e-06): 3 values, 37.5%");
}

TEST(BarEdgeBits, TheLowerEdgeInTheChosenFormat) {
    HistBar normal{-14.0, -13.75, 1, 0.1};  // 2^-14: FP16's smallest normal
    EXPECT_EQ(bar_edge_bits(normal, FormatId::fp16), "FP16 0 00001 0000000000 (0x0400) normal");
    HistBar tiny{-24.0, -23.75, 1, 0.1};  // 2^-24: FP16's smallest subnormal
    EXPECT_EQ(bar_edge_bits(tiny, FormatId::fp16), "FP16 0 00000 0000000001 (0x0001) subnormal");
    EXPECT_EQ(bar_edge_bits(tiny, FormatId::bf16), "BF16 0 01100111 0000000 (0x3380) normal");
    HistBar below{-26.0, -25.75, 1, 0.1};  // 2^-26 flushes to zero in FP16
    EXPECT_EQ(bar_edge_bits(below, FormatId::fp16), "FP16 0 00000 0000000000 (0x0000) zero");
}

TEST(HistogramView, SaysWhyNoHistogramIsShown) {
    EXPECT_EQ(no_histogram_text(std::nullopt, std::nullopt, 0, 10), "No histograms yet: this run takes them every 10 steps.");
    EXPECT_EQ(no_histogram_text(std::nullopt, std::nullopt, 0, 0),
              "This run takes no histograms (its telemetry.hist_every is 0).");
    // A jump to a step older than the held records (an event of a long run or record).
    EXPECT_EQ(no_histogram_text(250, 99010, 1024, 10),
              "No histograms at or before step 250 are held: the newest 1024 steps keep theirs, from step 99010 on "
              "('latest' follows the run again).");
    EXPECT_EQ(no_histogram_text(250, std::nullopt, 1024, 10), "No histograms yet: this run takes them every 10 steps.");
}

}  // namespace
}  // namespace plab
