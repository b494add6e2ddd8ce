// The Speed & memory panel's view: what PyTorch holds for the run's model
// under every recipe (its parameter side checked against closed forms for
// the default preset's MLP), the lab's own buffers beside it for an MLP, and
// for the GPT a line saying why the lab's are not counted.
#include <gtest/gtest.h>

#include "engine/train/preset_io.h"
#include "ui/present/speed_memory_view.h"

namespace plab {
namespace {

TEST(SpeedMemoryView, FrameworkRowsHoldTheParameterSideOfEveryRecipe) {
    const SpeedMemoryView v = speed_memory_view(load_preset("spirals-amp-fp16"));
    // 2-64-64-3 with biases: 2*64+64 + 64*64+64 + 64*3+3 parameters.
    EXPECT_EQ(v.framework.title, "a 2-64-64-3 MLP (batch 128), 4,547 parameters, adamw");
    ASSERT_EQ(v.framework.columns,
              (std::vector<std::string>{"recipe", "weights", "16-bit/FP8 copies", "gradients", "optimizer state",
                                        "activations", "total", "vs fp32"}));
    ASSERT_EQ(v.framework.rows.size(), 7u);
    const auto& fp32 = v.framework.rows[0];
    const auto& amp = v.framework.rows[2];
    const auto& pure = v.framework.rows[4];
    const auto& fp8 = v.framework.rows[6];
    EXPECT_EQ(fp32[0], "fp32");
    EXPECT_EQ(fp32[1], "18.2 kB FP32");  // 4547 x 4 bytes
    EXPECT_EQ(fp32[2], "-");
    EXPECT_EQ(fp32[4], "36.4 kB FP32");  // AdamW's two moments
    EXPECT_EQ(fp32[7], "100.0%");
    EXPECT_EQ(amp[0], "amp-fp16");
    EXPECT_EQ(amp[2], "9.1 kB FP16");    // autocast's copies of every weight and bias the matmuls read
    EXPECT_EQ(amp[3], "18.2 kB FP32");   // a gradient takes its parameter's format
    EXPECT_EQ(pure[0], "fp16-pure");
    EXPECT_EQ(pure[1], "9.1 kB FP16\n18.2 kB FP32");  // the model in FP16 and its FP32 masters, a line each
    EXPECT_EQ(fp8[2], "4.4 kB E4M3");    // the four weight matrices only: 4416 bytes
    ASSERT_TRUE(v.lab.has_value());
    EXPECT_EQ(v.lab->rows.size(), 4u);
    EXPECT_EQ(v.no_lab, "");
}

TEST(SpeedMemoryView, AGptHasTheFrameworkTableAndSaysWhyNotTheLabs) {
    const SpeedMemoryView v = speed_memory_view(load_preset("tiny-gpt-amp-fp16"));
    EXPECT_EQ(v.framework.title.rfind("a GPT (2 blocks, width 64, 4 heads", 0), 0u) << v.framework.title;
    ASSERT_EQ(v.framework.rows.size(), 7u);
    for (const auto& row : v.framework.rows) EXPECT_EQ(row.size(), v.framework.columns.size());
    // Under autocast the saved activations split: LayerNorm, softmax and the loss keep FP32.
    EXPECT_NE(v.framework.rows[2][5].find("FP32\n"), std::string::npos) << v.framework.rows[2][5];
    EXPECT_NE(v.framework.rows[2][5].find("FP16"), std::string::npos) << v.framework.rows[2][5];
    EXPECT_FALSE(v.lab.has_value());
    EXPECT_EQ(v.no_lab, "Counted for MLPs only (the lab keeps extra gradient tensors for its telemetry, and the "
                        "twin's); this model has attention blocks.");
}

}  // namespace
}  // namespace plab
