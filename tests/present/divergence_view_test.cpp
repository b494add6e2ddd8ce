#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ui/present/divergence_view.h"

namespace plab {
namespace {

constexpr float kNanF = std::numeric_limits<float>::quiet_NaN();
constexpr float kInfF = std::numeric_limits<float>::infinity();

// The records hold floats: the value the view sees for a written constant.
double f(double x) { return static_cast<double>(static_cast<float>(x)); }

struct LayerValues {
    float rel_dist;
    float grad_cos;
    std::int64_t grad_infs = 0;  // Inf values in the layer's weight gradient (an overflow)
};

StepRecord twin_step(std::int64_t step, std::vector<LayerValues> layers) {
    StepRecord r;
    r.step = step;
    for (const LayerValues& v : layers) {
        LayerRecord l;
        l.weight_rel_dist = v.rel_dist;
        l.grad_cos = v.grad_cos;
        l.grad.pos_infs = v.grad_infs;
        r.layers.push_back(l);
    }
    return r;
}

void expect_points(const std::vector<XY>& got, const std::vector<XY>& want, const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_EQ(got[i].x, want[i].x) << what << " point " << i;
        EXPECT_DOUBLE_EQ(got[i].y, want[i].y) << what << " point " << i;
    }
}

void expect_columns(const HeatMap& m, const std::vector<std::pair<std::int64_t, std::int64_t>>& want) {
    ASSERT_EQ(m.columns.size(), want.size());
    for (std::size_t c = 0; c < want.size(); ++c) {
        EXPECT_EQ(m.columns[c].first_step, want[c].first) << "column " << c;
        EXPECT_EQ(m.columns[c].last_step, want[c].second) << "column " << c;
    }
}

struct Cell {
    double value;  // NaN: none
    double shade;
    bool nonfinite;
};

void expect_row(const std::vector<HeatCell>& got, const std::vector<Cell>& want, const std::string& what) {
    ASSERT_EQ(got.size(), want.size()) << what;
    for (std::size_t c = 0; c < want.size(); ++c) {
        if (std::isnan(want[c].value)) {
            EXPECT_TRUE(std::isnan(got[c].value)) << what << " cell " << c;
            EXPECT_TRUE(std::isnan(got[c].shade)) << what << " cell " << c;
        } else {
            EXPECT_EQ(got[c].value, want[c].value) << what << " cell " << c;
            EXPECT_NEAR(got[c].shade, want[c].shade, 1e-6) << what << " cell " << c;
        }
        EXPECT_EQ(got[c].nonfinite, want[c].nonfinite) << what << " cell " << c;
    }
}

void expect_ticks(const std::vector<ShadeTick>& got, const std::vector<ShadeTick>& want) {
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) {
        EXPECT_DOUBLE_EQ(got[i].shade, want[i].shade) << "tick " << i;
        EXPECT_EQ(got[i].text, want[i].text) << "tick " << i;
    }
}

// Two layers over eight steps. fc1's distance starts at 0 (identical to the
// twin) and is NaN at step 5; its gradient overflowed at step 4 (it held an
// Inf: the cosine the arithmetic gave, 0, means nothing). fc2's gradient
// points away at step 5 (cosine -0.25).
RunLog two_layer_log() {
    const LayerValues fc1[8] = {{0, 1},       {2e-4f, 0.99f}, {3e-4f, 0.98f}, {1e-3f, 0.0f, 1},
                                {kNanF, 0.97f}, {5e-3f, 0.5f}, {1e-2f, 0.95f}, {2e-2f, 0.96f}};
    const LayerValues fc2[8] = {{1e-3f, 1}, {3e-3f, 1},      {2e-3f, 1}, {4e-3f, 1},
                                {5e-3f, -0.25f}, {6e-3f, 1}, {5e-2f, 1}, {3e-2f, 1}};
    RunLog log;
    for (std::int64_t s = 1; s <= 8; ++s) log.append(twin_step(s, {fc1[s - 1], fc2[s - 1]}));
    return log;
}

TEST(DivergenceView, LinesPerLayerWithZerosOnTheFloorAndNanLeftOut) {
    const RunLog log = two_layer_log();
    const DivergenceView v = make_divergence_view(log.view(), true, 4);
    EXPECT_TRUE(v.twin);
    ASSERT_EQ(v.layers.size(), 2u);
    EXPECT_EQ(v.layers[0].name, "fc1");
    EXPECT_EQ(v.layers[1].name, "fc2");
    EXPECT_EQ(v.step_min, 0);
    EXPECT_EQ(v.step_max, 8);

    // Positive distances 2e-4 .. 0.05: decades -4 .. -1; the zero at step 1
    // takes the axis one decade lower and is drawn there.
    EXPECT_DOUBLE_EQ(v.rel_dist_min, 1e-5);
    EXPECT_DOUBLE_EQ(v.rel_dist_max, 0.1);
    EXPECT_TRUE(v.rel_dist_zeros);
    // Smallest cosine -0.25, rounded down to a tenth.
    EXPECT_DOUBLE_EQ(v.cos_min, -0.3);
    EXPECT_EQ(v.cos_max, 1);

    // Line columns over [0, 8], two steps wide, centres 1 3 5 7: step 1;
    // steps 2-3; 4-5; 6-8 (step 8 on the right edge belongs to the last).
    expect_points(v.layers[0].rel_dist,
                  {{1, 1e-5}, {1, 1e-5}, {3, f(2e-4)}, {3, f(3e-4)}, {5, f(1e-3)}, {5, f(1e-3)}, {7, f(5e-3)},
                   {7, f(2e-2)}},
                  "fc1 distance");
    expect_points(v.layers[1].rel_dist,
                  {{1, f(1e-3)}, {1, f(1e-3)}, {3, f(2e-3)}, {3, f(3e-3)}, {5, f(4e-3)}, {5, f(5e-3)},
                   {7, f(6e-3)}, {7, f(5e-2)}},
                  "fc2 distance");
    expect_points(v.layers[0].grad_cos,
                  {{1, 1}, {1, 1}, {3, f(0.98)}, {3, f(0.99)}, {5, f(0.97)}, {5, f(0.97)}, {7, f(0.5)}, {7, f(0.96)}},
                  "fc1 cosine");
    expect_points(v.layers[1].grad_cos, {{1, 1}, {1, 1}, {3, 1}, {3, 1}, {5, -0.25}, {5, 1}, {7, 1}, {7, 1}},
                  "fc2 cosine");
}

TEST(DivergenceView, HeatMapsKeepTheWorstStepOfEachCell) {
    const RunLog log = two_layer_log();
    const DivergenceView v = make_divergence_view(log.view(), true, 4);
    // Eight steps in four cells of two.
    expect_columns(v.rel_dist_heat, {{1, 2}, {3, 4}, {5, 6}, {7, 8}});
    expect_columns(v.grad_cos_heat, {{1, 2}, {3, 4}, {5, 6}, {7, 8}});
    ASSERT_EQ(v.rel_dist_heat.rows.size(), 2u);
    ASSERT_EQ(v.grad_cos_heat.rows.size(), 2u);

    // Distance: the largest; shade = its place between decades -5 and -1.
    const auto dist_shade = [](double d) { return (std::log10(d) + 5.0) / 4.0; };
    expect_row(v.rel_dist_heat.rows[0],
               {{f(2e-4), dist_shade(2e-4), false}, {f(1e-3), 0.5, false}, {f(5e-3), dist_shade(5e-3), true},
                {f(2e-2), dist_shade(2e-2), false}},
               "fc1 distance");
    expect_row(v.rel_dist_heat.rows[1],
               {{f(3e-3), dist_shade(3e-3), false}, {f(4e-3), dist_shade(4e-3), false},
                {f(6e-3), dist_shade(6e-3), false}, {f(5e-2), dist_shade(5e-2), false}},
               "fc2 distance");
    // Cosine: the smallest; shade 0 at 1, 1 at cos_min -0.3.
    const auto cos_shade = [](double c) { return (1.0 - c) / 1.3; };
    expect_row(v.grad_cos_heat.rows[0],
               {{f(0.99), cos_shade(0.99), false}, {f(0.98), cos_shade(0.98), true}, {f(0.5), cos_shade(0.5), false},
                {f(0.95), cos_shade(0.95), false}},
               "fc1 cosine");
    expect_row(v.grad_cos_heat.rows[1],
               {{1, 0, false}, {1, 0, false}, {-0.25, 1.25 / 1.3, false}, {1, 0, false}}, "fc2 cosine");

    // A tick per decade, the floor read as 0; the cosine's ends and middle.
    expect_ticks(v.rel_dist_heat.ticks, {{0, "0"}, {0.25, "1e-4"}, {0.5, "1e-3"}, {0.75, "0.01"}, {1, "0.1"}});
    expect_ticks(v.grad_cos_heat.ticks, {{0, "1"}, {0.5, "0.35"}, {1, "-0.3"}});
}

TEST(DivergenceView, SummaryNamesTheLayerFarthestAtTheLatestStep) {
    const RunLog log = two_layer_log();
    const DivergenceView v = make_divergence_view(log.view(), true, 4);
    EXPECT_EQ(v.summary,
              "step 8: fc2 is farthest from its FP32 twin (weight distance 0.03, relative L2; gradient cosine 1)"
              " · lowest gradient cosine: fc1 0.96");
}

TEST(DivergenceView, CellTexts) {
    const RunLog log = two_layer_log();
    const DivergenceView v = make_divergence_view(log.view(), true, 4);
    EXPECT_EQ(heat_cell_text(v, DivergenceMetric::rel_dist, 0, 2),
              "fc1 · steps 5–6 · largest distance 0.005 · weights not finite");
    EXPECT_EQ(heat_cell_text(v, DivergenceMetric::grad_cos, 1, 2), "fc2 · steps 5–6 · smallest cosine -0.25");
    EXPECT_EQ(heat_cell_text(v, DivergenceMetric::grad_cos, 0, 1),
              "fc1 · steps 3–4 · smallest cosine 0.98 · gradient not finite (overflow)");
    // One step per column when they fit.
    const DivergenceView wide = make_divergence_view(log.view(), true, 100);
    EXPECT_EQ(heat_cell_text(wide, DivergenceMetric::rel_dist, 0, 0), "fc1 · step 1 · largest distance 0");
    EXPECT_EQ(heat_cell_text(wide, DivergenceMetric::grad_cos, 0, 3), "fc1 · step 4 · gradient not finite (overflow)");
}

TEST(DivergenceView, OneHeatColumnPerStepWhileTheyFit) {
    const RunLog log = two_layer_log();
    const DivergenceView v = make_divergence_view(log.view(), true, 100);
    expect_columns(v.rel_dist_heat, {{1, 1}, {2, 2}, {3, 3}, {4, 4}, {5, 5}, {6, 6}, {7, 7}, {8, 8}});
    expect_row(v.grad_cos_heat.rows[0],
               {{1, 0, false},
                {f(0.99), 0.01 / 1.3, false},
                {f(0.98), 0.02 / 1.3, false},
                {std::nan(""), 0, true},
                {f(0.97), 0.03 / 1.3, false},
                {f(0.5), 0.5 / 1.3, false},
                {f(0.95), 0.05 / 1.3, false},
                {f(0.96), 0.04 / 1.3, false}},
               "fc1 cosine");
    // The line columns are pixel columns, 100 over [0, 8]: one step each,
    // two points per column, none for fc1's NaN distance at step 5.
    EXPECT_EQ(v.layers[0].rel_dist.size(), 14u);
    EXPECT_EQ(v.layers[1].rel_dist.size(), 16u);
}

float cosine_at(std::int64_t step) { return 0.85f - static_cast<float>(step - 11) * 0.005f; }

// A fork's log starts after its fork step: ten steps 11..20 in four cells of
// 3, 2, 3, 2 steps (step 11 + k goes to cell floor(4k / 10)).
TEST(DivergenceView, StepsSplitIntoNearlyEqualCells) {
    RunLog log;
    for (std::int64_t s = 11; s <= 20; ++s)
        log.append(twin_step(s, {{static_cast<float>(s) * 1e-3f, cosine_at(s)}}));
    const DivergenceView v = make_divergence_view(log.view(), true, 4);
    EXPECT_EQ(v.step_min, 10);
    EXPECT_EQ(v.step_max, 20);
    expect_columns(v.rel_dist_heat, {{11, 13}, {14, 15}, {16, 18}, {19, 20}});
    ASSERT_EQ(v.rel_dist_heat.rows.size(), 1u);
    const std::vector<HeatCell>& d = v.rel_dist_heat.rows[0];
    const std::vector<HeatCell>& c = v.grad_cos_heat.rows[0];
    ASSERT_EQ(d.size(), 4u);
    ASSERT_EQ(c.size(), 4u);
    // Distance grows and cosine falls with the step: the worst is each cell's last step.
    const std::int64_t last[4] = {13, 15, 18, 20};
    for (std::size_t i = 0; i < 4; ++i) {
        EXPECT_EQ(d[i].value, static_cast<double>(static_cast<float>(last[i]) * 1e-3f)) << i;
        EXPECT_EQ(c[i].value, static_cast<double>(cosine_at(last[i]))) << i;
    }
    // Distances 0.011 .. 0.02: the decade [0.01, 0.1].
    EXPECT_DOUBLE_EQ(v.rel_dist_min, 1e-2);
    EXPECT_DOUBLE_EQ(v.rel_dist_max, 1e-1);
    EXPECT_FALSE(v.rel_dist_zeros);
    // Cosines 0.85 down to 0.805: the axis starts at 0.8.
    EXPECT_DOUBLE_EQ(v.cos_min, 0.8);
    expect_ticks(v.rel_dist_heat.ticks, {{0, "0.01"}, {1, "0.1"}});
}

TEST(DivergenceView, CosinesNearOneKeepAtLeastATenthOfAxis) {
    RunLog log;
    log.append(twin_step(1, {{1e-3f, 1.0f}, {1e-3f, 0.999f}}));
    const DivergenceView v = make_divergence_view(log.view(), true, 10);
    EXPECT_DOUBLE_EQ(v.cos_min, 0.9);
    RunLog exact;
    exact.append(twin_step(1, {{1e-3f, 1.0f}}));
    EXPECT_DOUBLE_EQ(make_divergence_view(exact.view(), true, 10).cos_min, 0.9);
}

TEST(DivergenceView, WeightsEqualToTheTwin) {
    RunLog log;
    log.append(twin_step(1, {{0, 1}, {0, 0.9999f}}));
    log.append(twin_step(2, {{0, 1}, {0, 0.99995f}}));
    const DivergenceView v = make_divergence_view(log.view(), true, 10);
    // No positive distance to place: the default decades, zeros on the floor.
    EXPECT_DOUBLE_EQ(v.rel_dist_min, 1e-6);
    EXPECT_DOUBLE_EQ(v.rel_dist_max, 1);
    EXPECT_TRUE(v.rel_dist_zeros);
    ASSERT_EQ(v.layers.size(), 2u);
    for (const XY& p : v.layers[1].rel_dist) EXPECT_DOUBLE_EQ(p.y, 1e-6);
    // Six decades: a label every second one, from the top down.
    expect_ticks(v.rel_dist_heat.ticks, {{0, "0"}, {2.0 / 6, "1e-4"}, {4.0 / 6, "0.01"}, {1, "1"}});
    EXPECT_EQ(v.rel_dist_heat.rows[1][0].shade, 0);
    EXPECT_EQ(v.summary, "step 2: every layer's weights equal the FP32 twin's; lowest gradient cosine: fc2 0.99995");
}

TEST(DivergenceView, NonFiniteWeightsAreTheFarthest) {
    RunLog log;
    log.append(twin_step(7, {{0.5f, 0.2f}, {kNanF, kNanF}, {kInfF, 0.1f}}));
    const DivergenceView v = make_divergence_view(log.view(), true, 10);
    EXPECT_EQ(v.summary,
              "step 7: fc2 is farthest from its FP32 twin (weight distance not finite, relative L2; gradient cosine "
              "not finite)");
    // Only 0.5 can be drawn: the decade [0.1, 1].
    EXPECT_DOUBLE_EQ(v.rel_dist_min, 0.1);
    EXPECT_DOUBLE_EQ(v.rel_dist_max, 1);
    EXPECT_TRUE(v.layers[1].rel_dist.empty());
    EXPECT_TRUE(v.layers[2].rel_dist.empty());
    EXPECT_TRUE(v.rel_dist_heat.rows[2][0].nonfinite);
    EXPECT_TRUE(std::isnan(v.rel_dist_heat.rows[2][0].value));
    // Cosines 0.2, 0.1: the axis from 0.1.
    EXPECT_DOUBLE_EQ(v.cos_min, 0.1);
}

TEST(DivergenceView, AnOverflowedGradientHasNoCosine) {
    RunLog log;
    log.append(twin_step(3, {{0.25f, 0.0f, 2}, {0.125f, 0.5f}}));
    const DivergenceView v = make_divergence_view(log.view(), true, 10);
    EXPECT_EQ(v.summary,
              "step 3: fc1 is farthest from its FP32 twin (weight distance 0.25, relative L2; gradient cosine "
              "not finite)");
    EXPECT_TRUE(v.layers[0].grad_cos.empty());
    EXPECT_TRUE(v.grad_cos_heat.rows[0][0].nonfinite);
    EXPECT_TRUE(std::isnan(v.grad_cos_heat.rows[0][0].value));
    // Only fc2's 0.5 places the cosine axis.
    EXPECT_DOUBLE_EQ(v.cos_min, 0.5);
}

TEST(DivergenceView, GapsNameTheLayersAndStepsNotFinite) {
    RunLog log;
    // fc1 and fc2 overflow at every step; fc3 from step 4 on; fc4 at steps 2 and 5; fc5 never.
    for (std::int64_t s = 1; s <= 5; ++s)
        log.append(twin_step(s, {{0.5f, 0.9f, 1}, {0.5f, 0.9f, 1}, {0.5f, 0.9f, s >= 4 ? 1 : 0},
                                 {0.5f, 0.9f, s == 2 || s == 5 ? 1 : 0}, {0.5f, 0.9f}}));
    const DivergenceView v = make_divergence_view(log.view(), true, 10);
    EXPECT_EQ(v.grad_cos_gaps,
              "gradient cosine not finite (Inf/NaN in the gradient): fc1, fc2 at every step shown; fc3 at steps 4-5; "
              "fc4 at 2 steps in 2-5");
    EXPECT_EQ(v.rel_dist_gaps, "");

    RunLog one;
    one.append(twin_step(7, {{0.5f, 0.2f}, {kNanF, kNanF}, {kInfF, 0.1f}}));
    one.append(twin_step(8, {{0.5f, 0.2f}, {0.5f, 0.2f}, {0.5f, 0.1f}}));
    const DivergenceView w = make_divergence_view(one.view(), true, 10);
    EXPECT_EQ(w.rel_dist_gaps, "weight distance not finite: fc2, fc3 at step 7");
    EXPECT_EQ(w.grad_cos_gaps, "gradient cosine not finite (Inf/NaN in the gradient): fc2 at step 7");
}

// Ticks for the decades lo .. hi, from distances 10^lo * 1.5 and 10^hi / 2.
std::vector<ShadeTick> ticks_for(int lo, int hi) {
    RunLog log;
    log.append(twin_step(1, {{static_cast<float>(1.5 * std::pow(10.0, lo)), 1}}));
    log.append(twin_step(2, {{static_cast<float>(0.5 * std::pow(10.0, hi)), 1}}));
    return make_divergence_view(log.view(), true, 10).rel_dist_heat.ticks;
}

TEST(DivergenceView, AtMostFiveDistanceLabelsCountedFromTheTop) {
    // Four decades: each labelled.
    expect_ticks(ticks_for(-5, -1), {{0, "1e-5"}, {0.25, "1e-4"}, {0.5, "1e-3"}, {0.75, "0.01"}, {1, "0.1"}});
    // Five: every second from the top, the floor kept; 1e-4, one decade above it, left out.
    expect_ticks(ticks_for(-5, 0), {{0, "1e-5"}, {0.6, "0.01"}, {1, "1"}});
    // Nine: every third from the top; 1e-9, one decade above the floor, is left out.
    expect_ticks(ticks_for(-10, -1), {{0, "1e-10"}, {3.0 / 9, "1e-7"}, {6.0 / 9, "1e-4"}, {1, "0.1"}});
    // Ten: every third; the floor 4 below the next.
    expect_ticks(ticks_for(-10, 0), {{0, "1e-10"}, {0.4, "1e-6"}, {0.7, "1e-3"}, {1, "1"}});
    // 0.0005 and 0.0015: two decades, each labelled.
    expect_ticks(ticks_for(-3, -3), {{0, "1e-4"}, {0.5, "1e-3"}, {1, "0.01"}});
}

TEST(DivergenceView, NoTwinShowsNothing) {
    RunLog log;
    log.append(twin_step(1, {{0, 0}, {0, 0}}));
    const DivergenceView v = make_divergence_view(log.view(), false, 100);
    EXPECT_FALSE(v.twin);
    EXPECT_TRUE(v.layers.empty());
    EXPECT_TRUE(v.rel_dist_heat.columns.empty());
    EXPECT_TRUE(v.grad_cos_heat.rows.empty());
    EXPECT_EQ(v.summary, "no FP32 twin in this run (twin=false): nothing to compare against");
}

TEST(DivergenceView, EmptyLog) {
    const RunLog log;
    const DivergenceView v = make_divergence_view(log.view(), true, 100);
    EXPECT_TRUE(v.layers.empty());
    EXPECT_TRUE(v.rel_dist_heat.columns.empty());
    EXPECT_EQ(v.step_min, 0);
    EXPECT_EQ(v.step_max, 1);
    EXPECT_EQ(v.summary, "no steps yet");
}

TEST(DivergenceView, TelemetryOff) {
    RunLog log;
    StepRecord r;
    r.step = 3;
    log.append(r);
    const DivergenceView v = make_divergence_view(log.view(), true, 100);
    EXPECT_TRUE(v.layers.empty());
    EXPECT_TRUE(v.rel_dist_heat.columns.empty());
    EXPECT_EQ(v.summary, "step 3: no per-layer telemetry (telemetry.enabled is off)");
}

// The view reads the ring of recent records: after more steps than it holds,
// only the latest are drawn.
TEST(DivergenceView, OnlyTheRecentRecords) {
    RunLog log(RunLogLimits{.recent = 4, .series = 8, .edits = 10});
    for (std::int64_t s = 1; s <= 10; ++s) log.append(twin_step(s, {{1e-3f, 1}}));
    const DivergenceView v = make_divergence_view(log.view(), true, 100);
    EXPECT_EQ(v.step_min, 6);
    EXPECT_EQ(v.step_max, 10);
    expect_columns(v.rel_dist_heat, {{7, 7}, {8, 8}, {9, 9}, {10, 10}});
}

}  // namespace
}  // namespace plab

namespace plab {
namespace {

// A transformer's layers: named from the run, grouped by block for the heat
// maps (a layer outside every block is its own group), and named in the
// summary, the gaps note and the cell hover text.
TEST(DivergenceView, ATransformersLayersAreNamedAndGroupedByBlock) {
    const std::vector<std::string> names = {"h0.attn.q", "h0.mlp.fc", "h1.attn.q", "h1.mlp.fc", "head"};
    RunLog log;
    for (std::int64_t s = 1; s <= 3; ++s)
        log.append(twin_step(s, {{1e-3f, 1}, {2e-3f, 1}, {5e-3f, s == 3 ? kNanF : 0.9f}, {1e-3f, 1}, {1e-4f, 1}}));
    const DivergenceView v = make_divergence_view(log.view(), true, 4, names);
    ASSERT_EQ(v.layers.size(), 5u);
    for (std::size_t i = 0; i < names.size(); ++i) EXPECT_EQ(v.layers[i].name, names[i]);
    const std::vector<LayerBlock> want = {{"h0", 0, 2}, {"h1", 2, 2}, {"head", 4, 1}};
    EXPECT_EQ(v.blocks, want);
    EXPECT_TRUE(v.summary.starts_with("step 3: h1.attn.q is farthest from its FP32 twin")) << v.summary;
    EXPECT_EQ(v.grad_cos_gaps, "gradient cosine not finite (Inf/NaN in the gradient): h1.attn.q at step 3");
    EXPECT_EQ(heat_cell_text(v, DivergenceMetric::rel_dist, 4, 0), "head · step 1 · largest distance 0.0001");
}

TEST(DivergenceView, AnMlpHasNoBlocksAndNamesBeyondTheGivenOnesAreFcN) {
    const RunLog log = two_layer_log();
    const DivergenceView v = make_divergence_view(log.view(), true, 4, {"fc1"});
    EXPECT_TRUE(v.blocks.empty());
    ASSERT_EQ(v.layers.size(), 2u);
    EXPECT_EQ(v.layers[0].name, "fc1");
    EXPECT_EQ(v.layers[1].name, "fc2");
}

}  // namespace
}  // namespace plab
