// The memory ledger, computed from a configuration alone, against the
// tensors a real model and optimizer hold after a training step and an
// evaluation on the CPU: every (class, format) total equal, element for
// element. Then the figures it gives for the seeds' 4096-wide MLP, checked
// against closed forms.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <utility>

#include "engine/amp/precision_policy.h"
#include "engine/backend/cpu/cpu_backend.h"
#include "engine/common/error.h"
#include "engine/model/mlp.h"
#include "engine/optim/optimizer.h"
#include "optim/optim_test_util.h"
#include "engine/train/memory_ledger.h"
#include "engine/train/preset_io.h"

namespace plab {
namespace {

using Totals = std::map<std::pair<TensorClass, FormatId>, std::int64_t>;

Totals ledger_totals(const MemoryLedger& ledger) {
    Totals t;
    for (const LedgerLine& l : ledger.lines) t[{l.tensor_class, l.format}] += l.elements;
    return t;
}

struct Case {
    const char* name;
    Recipe recipe;
    bool layer_norm;
    OptimizerKind optimizer;
    float momentum;
    bool master_weights = true;
    bool batch_norm = false;
};

class MemoryLedgerAgainstTensors : public testing::TestWithParam<Case> {};

TEST_P(MemoryLedgerAgainstTensors, CountsWhatTheModelAndOptimizerHold) {
    const Case k = GetParam();
    RunConfig c = load_preset("spirals-amp-fp16");
    c.twin = false;
    c.batch_size = 24;
    c.model.hidden = {16, 12};
    c.model.layer_norm = k.layer_norm;
    c.model.batch_norm = k.batch_norm;
    c.precision.recipe = k.recipe;
    c.precision.master_weights = k.master_weights;
    c.optimizer.kind = k.optimizer;
    c.optimizer.momentum = k.momentum;
    const int test_rows = 10, inputs = 2, outputs = 3;

    CpuBackend cpu;
    MlpSpec spec{.widths = {inputs, 16, 12, outputs}, .layer_norm = k.layer_norm, .batch_norm = k.batch_norm};
    spec.weight_format = recipe_weight_format(k.recipe);
    spec.master_weights = c.precision.master_weights;
    const PassFormats formats = mixed_pass_formats(c.precision, 3);
    Mlp model(cpu, spec);
    auto batch = [&](int rows) {
        Tensor x = cpu.allocate({rows, inputs}, FormatId::fp32), y = cpu.allocate({rows, 1}, FormatId::fp32);
        for (int r = 0; r < rows; ++r) y.host()[r] = static_cast<float>(r % outputs);
        return std::pair{x, y};
    };
    const auto [x, y] = batch(c.batch_size);
    model.forward(cpu, x, y, formats);
    model.backward(cpu, x, y, 1024.0f);
    Optimizer optimizer(c.optimizer);
    test::run_step(optimizer, cpu, model.parameters());
    const auto [tx, ty] = batch(test_rows);
    {
        const EvaluationScope evaluating(model);
        model.forward(cpu, tx, ty, formats);  // the evaluation pass keeps its own buffers
    }

    Totals held;
    for (Parameter* p : model.parameters()) {
        held[{TensorClass::weights, p->value.dtype()}] += static_cast<std::int64_t>(p->value.size());
        if (!p->master.empty())
            held[{TensorClass::master_copies, p->master.dtype()}] += static_cast<std::int64_t>(p->master.size());
        for (const Tensor* g : {&p->grad, &p->grad_sum, &p->master_grad})
            held[{TensorClass::gradients, g->dtype()}] += static_cast<std::int64_t>(g->size());
    }
    model.for_each_buffer([&](const Tensor& t) {
        held[{TensorClass::activations, t.dtype()}] += static_cast<std::int64_t>(t.size());
    });
    optimizer.for_each_state_tensor([&](const Tensor& t) {
        held[{TensorClass::optimizer_state, t.dtype()}] += static_cast<std::int64_t>(t.size());
    });

    EXPECT_EQ(ledger_totals(memory_ledger(c, inputs, outputs, test_rows)), held);
}

INSTANTIATE_TEST_SUITE_P(Recipes, MemoryLedgerAgainstTensors,
                         testing::Values(Case{"amp_fp16_layer_norm_adamw", Recipe::amp_fp16, true, OptimizerKind::adamw, 0},
                                         Case{"amp_bf16_sgd_momentum", Recipe::amp_bf16, false, OptimizerKind::sgd, 0.9f},
                                         Case{"fp16_pure_sgd", Recipe::fp16_pure, true, OptimizerKind::sgd, 0.0f},
                                         Case{"bf16_pure_adamw", Recipe::bf16_pure, true, OptimizerKind::adamw, 0},
                                         Case{"bf16_pure_no_master_sgd_momentum", Recipe::bf16_pure, false,
                                              OptimizerKind::sgd, 0.9f, false},
                                         Case{"fp32_adamw", Recipe::fp32, false, OptimizerKind::adamw, 0},
                                         Case{"fp8_adamw", Recipe::fp8, false, OptimizerKind::adamw, 0},
                                         // The preset's FP32 list lacks batch_norm: FP16 statistics.
                                         Case{"amp_fp16_batch_norm_sgd_momentum", Recipe::amp_fp16, false,
                                              OptimizerKind::sgd, 0.9f, true, true},
                                         Case{"fp32_batch_norm_adamw", Recipe::fp32, false, OptimizerKind::adamw, 0,
                                              true, true}),
                         [](const auto& p) { return std::string(p.param.name); });

// The seeds' model: 2-4096x4-3, batch 8192, AdamW, no twin. Parameters
// P = 2*4096 + 4096 + 3*(4096^2 + 4096) + 4096*3 + 3; activations per pass:
// pre, d_pre, post and d_post of each hidden layer (4 x rows x 4096 each)
// and the last layer's pre, d_pre (rows x 3) and probabilities (FP32).
TEST(MemoryLedger, TheSeedsWideMlpInClosedForm) {
    RunConfig c = load_preset("spirals-amp-fp16");
    c.twin = false;
    c.batch_size = 8192;
    c.model.hidden = {4096, 4096, 4096, 4096};
    const std::int64_t w = 4096, rows = 8192, test = 2048;
    const std::int64_t params = (2 * w + w) + 3 * (w * w + w) + (w * 3 + 3);
    const std::int64_t hidden = 4 * w * 4, last = 3 * 2;  // per row
    for (Recipe r : {Recipe::fp32, Recipe::amp_fp16}) {
        c.precision.recipe = r;
        const MemoryLedger l = memory_ledger(c, 2, 3, static_cast<int>(test));
        const std::int64_t a = r == Recipe::fp32 ? 4 : 2;  // bytes of an activation
        EXPECT_EQ(l.bytes(TensorClass::weights), 4 * params);
        EXPECT_EQ(l.bytes(TensorClass::master_copies), 0);
        EXPECT_EQ(l.bytes(TensorClass::gradients), (a + 4 + 4) * params);
        EXPECT_EQ(l.bytes(TensorClass::optimizer_state), 8 * params);
        EXPECT_EQ(l.bytes(TensorClass::activations), (rows + test) * ((hidden + last) * a + 3 * 4));
        EXPECT_EQ(l.total_stored_bytes(), (4 + 12 + 8) * params + (rows + test) * (hidden + last + 3) * 4);
    }
}

// A 2-16-3 MLP, P = (2*16 + 16) + (16*3 + 3) = 99 parameters: the pure
// recipes hold their values at 2 bytes and FP32 master copies (4 bytes) only
// when asked to; the AMP recipes' values are themselves the FP32 masters.
TEST(MemoryLedger, PureRecipesHoldTwoByteWeightsAndMastersOnlyWhenAsked) {
    RunConfig c = load_preset("spirals-amp-fp16");
    c.twin = false;
    c.model.hidden = {16};
    c.model.layer_norm = false;
    constexpr std::int64_t params = 99;
    for (Recipe r : {Recipe::fp16_pure, Recipe::bf16_pure, Recipe::amp_bf16})
        for (bool master : {true, false}) {
            SCOPED_TRACE(std::string(recipe_name(r)) + (master ? " with masters" : " without"));
            c.precision.recipe = r;
            c.precision.master_weights = master;
            const MemoryLedger l = memory_ledger(c, 2, 3, 10);
            const bool pure = r != Recipe::amp_bf16;
            EXPECT_EQ(l.bytes(TensorClass::weights), (pure ? 2 : 4) * params);
            EXPECT_EQ(l.bytes(TensorClass::master_copies), pure && master ? 4 * params : 0);
        }
}

TEST(MemoryLedger, TheTwinDoublesInFp32AndAttentionIsRefused) {
    RunConfig c = load_preset("spirals-amp-fp16");
    ASSERT_TRUE(c.twin);
    const MemoryLedger l = memory_ledger(c, 2, 3, 300);
    std::int64_t twin = 0;
    for (const LedgerLine& line : l.lines)
        if (line.twin) {
            EXPECT_EQ(line.format, FormatId::fp32) << line.what;
            twin += line.elements;
        }
    c.twin = false;
    std::int64_t alone = 0;
    for (const LedgerLine& line : memory_ledger(c, 2, 3, 300).lines) alone += line.elements;
    EXPECT_EQ(twin, alone);  // the same tensors, every one in FP32
    c.model.attention_tokens = 4;
    EXPECT_THROW(memory_ledger(c, 2, 3, 300), Error);
}

}  // namespace
}  // namespace plab
