// The Speed & memory view: its rows are the ledgers' bytes, its ratios are
// checked against the closed forms of the seeds' wide MLP (memory_ledger_test),
// and its notes say where the times come from or why there are none.
#include <gtest/gtest.h>

#include "engine/common/number_text.h"
#include "ui/present/recipe_comparison_view.h"

namespace plab {
namespace {

TEST(RecipeComparisonView, RowsHoldTheLedgersAndTheRatioToFp32) {
    const RunConfig base = seeds_wide_mlp();
    const std::vector<RecipeFigures> figures = compare_recipes(base, nullptr);
    const RecipeComparisonView v = recipe_comparison_view(figures, base, "", "none here");
    EXPECT_EQ(v.title, "2-4096-4096-4096-4096-3 MLP, batch 8192, AdamW");
    ASSERT_EQ(v.columns.size(), 10u);
    EXPECT_EQ(v.columns[4], "activations");
    ASSERT_EQ(v.rows.size(), 4u);
    EXPECT_EQ(v.rows[0][0], "fp32");
    EXPECT_EQ(v.rows[2][0], "amp-fp16");
    EXPECT_EQ(v.rows[0][7], "1x");
    // Closed forms: P parameters at 24 bytes (FP32) or 22 (AMP), activations
    // per row of both passes (8192 + 2048) at 4 bytes or 2, probabilities FP32.
    const double p = 3 * 4096.0 + 3 * (4096.0 * 4096 + 4096) + 4096 * 3 + 3;
    const double rows = 8192 + 2048, per_row = 4 * 4096 * 4 + 6;
    const double fp32 = 24 * p + rows * (per_row * 4 + 12), amp = 22 * p + rows * (per_row * 2 + 12);
    EXPECT_EQ(v.rows[2][7], significant_text(amp / fp32, 3) + "x");
    EXPECT_EQ(v.rows[2][4], mib_text(static_cast<std::size_t>(rows * per_row * 2 + rows * 12)) + " MiB");
    EXPECT_EQ(v.rows[0][8], "-");
    EXPECT_NE(v.claim.find("AMP-FP16 holds " + significant_text(amp / fp32, 3) + "x FP32's bytes"), std::string::npos)
        << v.claim;
    EXPECT_NE(v.claim.find("activations 0.5"), std::string::npos) << v.claim;
    // Not a framework's layout, and the claim says where that one is.
    EXPECT_NE(v.claim.find("In the lab's own buffers"), std::string::npos) << v.claim;
    EXPECT_NE(v.claim.find("plab scenario memory-ledger"), std::string::npos) << v.claim;
    EXPECT_EQ(v.times, "Step times and accuracy need a GPU: none here. On one: plab bench --compare-recipes --backend cuda.");
}

TEST(RecipeComparisonView, TimesAndAccuracyWhenAGpuRanThem) {
    RunConfig base = seeds_wide_mlp();
    base.steps = 12;
    std::vector<RecipeFigures> figures = compare_recipes(base, nullptr);
    figures[0].step_seconds = 0.05;
    figures[2].step_seconds = 0.02;
    figures[2].accuracy = 0.9876f;
    const RecipeComparisonView v = recipe_comparison_view(figures, base, "NVIDIA H200", "");
    EXPECT_EQ(v.rows[0][8], "50 ms");
    EXPECT_EQ(v.rows[2][8], "20 ms");
    EXPECT_EQ(v.rows[2][9], "98.8%");
    EXPECT_NE(v.claim.find("runs 2.5x FP32's speed"), std::string::npos) << v.claim;
    EXPECT_EQ(v.times, "Step: the mean of 10 steps on NVIDIA H200 after two untimed ones; accuracy on the test set after "
                       "12 steps.");
}

TEST(RecipeComparisonView, LinesAlignEveryColumn) {
    const RunConfig base = seeds_wide_mlp();
    const std::vector<std::string> lines =
        recipe_comparison_lines(recipe_comparison_view(compare_recipes(base, nullptr), base, "", "none here"));
    ASSERT_GE(lines.size(), 6u);
    for (std::size_t i = 2; i < 6; ++i) EXPECT_EQ(lines[i].size(), lines[1].size()) << lines[i];
    EXPECT_EQ(lines[1].rfind("recipe", 0), 0u);
}

}  // namespace
}  // namespace plab
