// memory-ledger: the article's sums and BERT-Large's framework ledger
// redone by hand here, from the published shape and the formats' widths.
#include "scenario/scenario_test_util.h"

#include "engine/scenario/scenario_checks.h"
#include "engine/train/framework_ledger.h"

namespace plab {
namespace {

bool contains(const std::vector<Verdict>& verdicts, const std::string& text) {
    for (const Verdict& v : verdicts)
        if (v.text.find(text) != std::string::npos) return true;
    return false;
}

TEST(ScenarioMemoryLedger, VerdictsHold) {
    CpuBackend backend;
    scenario_test::expect_all_hold(check_memory_ledger(backend, {}), "memory-ledger");
}

TEST(ScenarioMemoryLedger, ArticleSumsRedoneByHand) {
    const double p = 340e6;
    const double fp32 = p * 4 + 8e9, mixed = p * 2 + p * 4 + 4e9;
    EXPECT_DOUBLE_EQ(fp32, 9.36e9);
    EXPECT_DOUBLE_EQ(mixed, 6.04e9);
    EXPECT_NEAR(1 - mixed / fp32, 0.355, 0.0005);
    CpuBackend backend;
    const ScenarioReport r = check_memory_ledger(backend, {});
    EXPECT_TRUE(contains(r.verdicts, "= 9.36 GB; mixed 680.00 MB FP16 + 1.36 GB FP32 master + 4.00 GB activations = "
                                     "6.04 GB: 35.5% saved"));
}

// BERT-Large at 128 tokens: per token and block, 6d + 2f values stored in
// the compute format (the inputs of q/k/v, the output projection, fc and
// fc_proj; Q, K, V; GELU's input), 2d LayerNorm inputs and h x 128
// probabilities on the FP32 list, and 4 statistics; the embeddings'
// LayerNorm d + 2; the pooler 2d per sequence. 8 GB / FP32 bytes of one
// sequence gives batch 35.
TEST(ScenarioMemoryLedger, BertLargeLedgerRedoneByHand) {
    const std::int64_t d = 1024, f = 4096, h = 16, s = 128, layers = 24, batch = 35, rows = batch * s;
    const std::int64_t low = layers * (6 * d + 2 * f) * rows + 2 * d * batch;
    const std::int64_t kept = layers * (2 * d + h * s + 4) * rows + (d + 2) * rows;
    const std::int64_t per_sequence_bytes = 4 * (low + kept) / batch;
    EXPECT_EQ(std::llround(8e9 / static_cast<double>(per_sequence_bytes)), batch);

    const std::int64_t n = 335'141'888;
    const std::int64_t cast = layers * (4 * (d * d + d) + (d * f + f) + (f * d + d)) + d * d + d;
    const std::int64_t fp32_total = 16 * n + 4 * (low + kept);     // weights, grads, m, v; activations
    const std::int64_t amp_total = 16 * n + 2 * cast + 2 * low + 4 * kept;
    EXPECT_EQ(fp32_total, 13'309'897'728);
    EXPECT_EQ(amp_total, 10'833'462'272);
    // Byte for byte, before the verdicts round to two decimals.
    const ModelShape bert = bert_large_shape(static_cast<int>(batch), static_cast<int>(s));
    PrecisionConfig amp;  // autocast's FP32 list, as the preset keeps it
    amp.recipe = Recipe::amp_fp16;
    PrecisionConfig full;
    full.recipe = Recipe::fp32;
    EXPECT_EQ(framework_ledger(bert, amp, OptimizerConfig{}).total_bytes(), amp_total);
    EXPECT_EQ(framework_ledger(bert, full, OptimizerConfig{}).total_bytes(), fp32_total);

    CpuBackend backend;
    const ScenarioReport r = check_memory_ledger(backend, {});
    EXPECT_TRUE(contains(r.verdicts, "batch 35 x 128 tokens: FP32 activations 7.95 GB"));
    EXPECT_TRUE(contains(r.verdicts, "in all: fp32 13.31 GB -> amp-fp16 10.83 GB, 18.6% saved"));
    EXPECT_TRUE(contains(r.verdicts, "fp32 5.36 GB (16), amp-fp16 5.97 GB (17.81), amp-bf16 5.97 GB (17.81)"));
    EXPECT_EQ(cast, 303'260'672);
    EXPECT_TRUE(contains(r.verdicts, "each of the 303,260,672 weights and biases the matmuls read"));
    EXPECT_TRUE(contains(r.verdicts, "activations: fp32 7.95 GB -> amp-fp16 4.86 GB (61.2%)"));
    ASSERT_FALSE(r.table.empty());
}

}  // namespace
}  // namespace plab
