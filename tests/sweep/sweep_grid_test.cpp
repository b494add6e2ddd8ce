// The sweep's grid: axes as typed, the cells and runs they expand to, and
// the refusals of bad input, each naming the axis and what is allowed.
// Expected configs are written out by hand.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/sweep/sweep_grid.h"
#include "error_text.h"

namespace plab {
namespace {

using testing_support::error_of;

RunConfig small_preset() {
    RunConfig c = load_preset("spirals-amp-fp16");
    c.steps = 10;
    return c;
}

TEST(SweepAxis, SplitsValuesOutsideBrackets) {
    const SweepAxis a = parse_sweep_axis("model.hidden=[32,32],[64],\"a,b\"");
    EXPECT_EQ(a.field, "model.hidden");
    EXPECT_EQ(a.values, (std::vector<std::string>{"[32,32]", "[64]", "\"a,b\""}));
    EXPECT_TRUE(parse_sweep_axis("scaler.init_scale=").values.empty());
    EXPECT_NE(error_of([] { parse_sweep_axis("scaler.init_scale"); }).find("allowed FIELD=V1,V2"), std::string::npos);
    EXPECT_NE(error_of([] { parse_sweep_axis("scaler.init_scale=2^8,,2^16"); }).find("--grid scaler.init_scale: "),
              std::string::npos);
}

TEST(SweepSeeds, RangesAndLists) {
    EXPECT_EQ(parse_seed_list("1-5"), (std::vector<std::uint64_t>{1, 2, 3, 4, 5}));
    EXPECT_EQ(parse_seed_list("9,1-2"), (std::vector<std::uint64_t>{9, 1, 2}));
    EXPECT_EQ(parse_seed_list("18446744073709551615"), (std::vector<std::uint64_t>{18446744073709551615ull}));
    EXPECT_NE(error_of([] { parse_seed_list("5-1"); }).find("runs backwards"), std::string::npos);
    EXPECT_NE(error_of([] { parse_seed_list("1,x"); }).find("allowed seeds"), std::string::npos);
    EXPECT_NE(error_of([] { parse_seed_list("1-3,2"); }).find("seed 2 is listed twice"), std::string::npos);
    EXPECT_NE(error_of([] { parse_seed_list("1-20000"); }).find("more than 10000"), std::string::npos);
}

TEST(SweepPlan, EveryCombinationOncePerSeed) {
    const SweepPlan plan = plan_sweep(small_preset(), {{"optimizer.lr=0.01"}, 20, {}, {}},
                                      {parse_sweep_axis("scaler.init_scale=2^8,1024,2^-2"),
                                       parse_sweep_axis("scaler.growth_interval=50,2^10")},
                                      {7, 3});
    ASSERT_EQ(plan.cells.size(), 6u);
    ASSERT_EQ(plan.runs.size(), 12u);
    EXPECT_EQ(plan.cells[1].settings, (std::vector<std::string>{"scaler.init_scale=2^8", "scaler.growth_interval=2^10"}));
    const SweepRun& r = plan.runs[3];  // cell 1, second seed
    EXPECT_EQ(r.cell, 1u);
    EXPECT_EQ(r.seed, 3u);
    EXPECT_EQ(r.config.seed, 3u);
    EXPECT_EQ(r.config.scaler.init_scale, 256.0f);
    EXPECT_EQ(r.config.scaler.growth_interval, 1024);
    EXPECT_EQ(r.config.steps, 20);
    EXPECT_EQ(r.config.optimizer.lr, 0.01f);
    EXPECT_EQ(plan.runs[11].config.scaler.init_scale, 0.25f);
    EXPECT_EQ(plan.runs[11].config.scaler.growth_interval, 1024);
    EXPECT_EQ(sweep_run_name(plan, 3), "04_scaler.init_scale=2^8,scaler.growth_interval=2^10,seed=3");
}

// What a front end trains again to show a cell's curves: the base preset
// with the sweep's own settings and the cell's run settings is that cell's
// first run, config for config, with seeds named or not.
TEST(SweepPlan, ACellsRunSettingsRemakeItsFirstRun) {
    const std::vector<SweepAxis> axes = {parse_sweep_axis("scaler.init_scale=2^8,2^-2"),
                                         parse_sweep_axis("scaler.growth_interval=50,2^10")};
    for (const std::vector<std::uint64_t>& seeds : {std::vector<std::uint64_t>{7, 3}, std::vector<std::uint64_t>{}}) {
        const SweepPlan plan = plan_sweep(small_preset(), {{"optimizer.lr=0.01"}, 20, {}, {}}, axes, seeds);
        for (std::size_t cell = 0; cell < plan.cells.size(); ++cell) {
            RunConfig remade = small_preset();
            apply_settings(remade, {"optimizer.lr=0.01"});
            apply_settings(remade, cell_run_settings(plan, cell));
            const SweepRun& first = plan.runs[seeds.empty() ? cell : 2 * cell];
            ASSERT_EQ(first.cell, cell);
            EXPECT_TRUE(remade == first.config) << "cell " << cell << " seeds " << seeds.size();
        }
    }
    const SweepPlan plan = plan_sweep(small_preset(), {}, axes, {7, 3});
    EXPECT_EQ(cell_run_settings(plan, 1),
              (std::vector<std::string>{"scaler.init_scale=2^8", "scaler.growth_interval=2^10", "seed=7", "steps=10"}));
    EXPECT_NE(error_of([&] { cell_run_settings(plan, 4); }).find("the grid has 4 cells"), std::string::npos);
}

TEST(SweepPlan, WithoutSeedsEachCellRunsThePresetsSeedOnce) {
    const SweepPlan plan = plan_sweep(small_preset(), {}, {parse_sweep_axis("seed=4,5"),
                                                          parse_sweep_axis("model.hidden=[8],[4,4]")}, {});
    ASSERT_EQ(plan.runs.size(), 4u);
    EXPECT_EQ(plan.runs[2].config.seed, 5u);
    EXPECT_EQ(plan.runs[3].config.model.hidden, (std::vector<int>{4, 4}));
    EXPECT_EQ(sweep_run_name(plan, 3), "4_seed=5,model.hidden=_4,4_");
}

// The size both front ends name when they ask before a large grid.
TEST(SweepPlan, GridSizeText) {
    const SweepPlan two_axes = plan_sweep(small_preset(), {}, {parse_sweep_axis("scaler.init_scale=2^8,2^16,2^24"),
                                                               parse_sweep_axis("scaler.growth_interval=5,20")},
                                          {1, 2});
    EXPECT_EQ(grid_size_text(two_axes), "12 runs (3 x 2 cells x 2 seeds)");
    const SweepPlan one = plan_sweep(small_preset(), {}, {parse_sweep_axis("scaler.init_scale=2^8")}, {});
    EXPECT_EQ(grid_size_text(one), "1 run (1 cell)");
}

TEST(SweepPlan, RefusalsNameTheAxisAndTheAllowedValues) {
    const RunConfig base = small_preset();
    auto plan_error = [&](std::vector<std::string> grids, std::vector<std::uint64_t> seeds = {}) {
        std::vector<SweepAxis> axes;
        for (const std::string& g : grids) axes.push_back(parse_sweep_axis(g));
        return error_of([&] { plan_sweep(base, {}, axes, seeds); });
    };
    EXPECT_NE(plan_error({}).find("no --grid axis"), std::string::npos);
    EXPECT_EQ(plan_error({"scaler.init_scale="}),
              "--grid scaler.init_scale: the axis has no values; give FIELD=V1,V2,...");
    EXPECT_NE(plan_error({"scaler.init_scale=1", "scaler.init_scale=2"}).find("--grid scaler.init_scale: the axis is given twice"),
              std::string::npos);
    EXPECT_NE(plan_error({"seed=1,2"}, {1}).find("--grid seed: the seeds are given by --seeds too"),
              std::string::npos);
    EXPECT_NE(plan_error({"scaler.init_scale=2,2"}).find("the value 2 is listed twice"), std::string::npos);
    const std::string unknown = plan_error({"scaler.grwth_interval=50"});
    EXPECT_NE(unknown.find("--grid scaler.grwth_interval=50: scaler.grwth_interval: unknown key; allowed keys: kind, "),
              std::string::npos) << unknown;
    EXPECT_NE(unknown.find("did you mean growth_interval?"), std::string::npos) << unknown;
    const std::string range = plan_error({"scaler.growth_interval=50,0"});
    EXPECT_NE(range.find("--grid scaler.growth_interval=0: scaler.growth_interval: 0 is out of range; allowed"),
              std::string::npos) << range;
    const std::string name = plan_error({"precision.recipe=amp-fp16,fp12"});
    EXPECT_NE(name.find("--grid precision.recipe=fp12: precision.recipe: \"fp12\" is not allowed; allowed fp32|"),
              std::string::npos) << name;
}

}  // namespace
}  // namespace plab
