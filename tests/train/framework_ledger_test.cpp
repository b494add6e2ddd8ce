// The framework-layout ledger against closed forms: every weight, bias and
// saved activation of a small MLP, an MLP with the attention block and a
// tiny GPT counted by hand here; the GPT's parameters also against a real
// TinyGpt's tensors; BERT-Large's parameter count from its published shape;
// then each recipe's classes and formats, byte for byte.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <tuple>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/model/tiny_gpt.h"
#include "engine/train/framework_ledger.h"
#include "engine/train/model_shape.h"

namespace plab {
namespace {

std::map<std::string, std::int64_t> saved_by_what(const ModelShape& s) {
    std::map<std::string, std::int64_t> out;
    for (const SavedActivation& a : s.saved) out[a.what] += a.elements;
    return out;
}

using Key = std::tuple<HeldClass, FormatId>;
std::map<Key, std::int64_t> elements_by_class(const FrameworkLedger& l) {
    std::map<Key, std::int64_t> out;
    for (const HeldLine& line : l.lines) out[{line.held_class, line.format}] += line.elements;
    return out;
}

PrecisionConfig recipe(Recipe r, bool master_weights = true) {
    PrecisionConfig p;
    p.recipe = r;
    p.master_weights = master_weights;
    return p;
}

OptimizerConfig adamw() { return {}; }

OptimizerConfig sgd(float momentum) {
    OptimizerConfig o;
    o.kind = OptimizerKind::sgd;
    o.momentum = momentum;
    return o;
}

// 2-8-8-3, LayerNorm and ReLU, batch 5.
ModelShape small_mlp() {
    return mlp_shape({.widths = {2, 8, 8, 3}, .activation = Activation::relu, .layer_norm = true, .rows = 5});
}

TEST(ModelShape, SmallMlpCountedByHand) {
    const ModelShape s = small_mlp();
    // fc1 2x8 + 8, LayerNorm 2x8, fc2 8x8 + 8, LayerNorm 2x8, fc3 8x3 + 3.
    EXPECT_EQ(s.parameter_count(), 24 + 16 + 72 + 16 + 27);
    EXPECT_EQ(s.parameter_count(ParameterUse::matmul_weight), 16 + 64 + 24);
    EXPECT_EQ(s.parameter_count(ParameterUse::matmul_bias), 8 + 8 + 3);
    const auto saved = saved_by_what(s);
    EXPECT_EQ(saved.at("Linear inputs"), 5 * (2 + 8 + 8));  // ReLU's outputs are fc2's and fc3's inputs
    EXPECT_EQ(saved.at("LayerNorm inputs"), 5 * (8 + 8));
    EXPECT_EQ(saved.at("LayerNorm row statistics"), 2 * 5 * 2);
    EXPECT_EQ(saved.at("log-probabilities of the loss"), 5 * 3);
    EXPECT_EQ(saved.size(), 4u);
}

TEST(ModelShape, MlpWithAttentionGeluAndMseCountedByHand) {
    // 4-8-1, GELU, the attention block reading the 8-wide row as 2 tokens, batch 3.
    const ModelShape s = mlp_shape(
        {.widths = {4, 8, 1}, .activation = Activation::gelu, .attention_tokens = 2, .classes = false, .rows = 3});
    EXPECT_EQ(s.parameter_count(), (4 * 8 + 8) + 4 * (8 * 8 + 8) + (8 * 1 + 1));
    const auto saved = saved_by_what(s);
    // fc1's input, q/k/v's shared input, the output projection's input, fc2's input.
    EXPECT_EQ(saved.at("Linear inputs"), 3 * 4 + 3 * 8 + 3 * 8 + 3 * 8);
    EXPECT_EQ(saved.at("GELU inputs"), 3 * 8);
    EXPECT_EQ(saved.at("attention Q, K and V"), 3 * 3 * 8);
    EXPECT_EQ(saved.at("attention probabilities"), 3 * 2 * 2);
    EXPECT_EQ(saved.at("predictions of the loss"), 3);
    EXPECT_EQ(saved.size(), 5u);
}

// Vocabulary 10, context 4, width 8, 2 heads, 1 block, FFN 32, 3 sequences: 12 rows.
TransformerShapeSpec tiny_gpt_spec() {
    return {.layers = 1, .width = 8, .heads = 2, .ffn = 32, .vocabulary = 10, .positions = 4, .sequences = 3, .tokens = 4};
}

TEST(ModelShape, TinyGptCountedByHand) {
    const ModelShape tied = gpt_shape(tiny_gpt_spec(), true);
    const std::int64_t embeddings = 10 * 8 + 4 * 8;
    const std::int64_t block = 2 * 8 + 4 * (8 * 8 + 8) + 2 * 8 + (8 * 32 + 32) + (32 * 8 + 8);
    EXPECT_EQ(tied.parameter_count(), embeddings + block + 2 * 8);
    EXPECT_EQ(tied.parameter_count(), 1000);
    // The tied head's matmul reads the token embedding: autocast casts it.
    EXPECT_EQ(tied.parameter_count(ParameterUse::matmul_weight), 4 * 64 + 8 * 32 + 32 * 8 + 10 * 8);
    EXPECT_EQ(tied.parameter_count(ParameterUse::matmul_bias), 4 * 8 + 32 + 8);
    const auto saved = saved_by_what(tied);
    const std::int64_t rows = 12;
    EXPECT_EQ(saved.at("Linear inputs"), rows * (8 + 8 + 8 + 32) + rows * 8);  // q/k/v, proj, fc, fc_proj, head
    EXPECT_EQ(saved.at("LayerNorm inputs"), rows * 8 * 3);
    EXPECT_EQ(saved.at("LayerNorm row statistics"), 2 * rows * 3);
    EXPECT_EQ(saved.at("attention Q, K and V"), 3 * rows * 8);
    EXPECT_EQ(saved.at("attention probabilities"), rows * 2 * 4);  // per head, each query over 4 keys
    EXPECT_EQ(saved.at("GELU inputs"), rows * 32);
    EXPECT_EQ(saved.at("log-probabilities of the loss"), rows * 10);

    const ModelShape untied = gpt_shape(tiny_gpt_spec(), false);
    EXPECT_EQ(untied.parameter_count(), 1000 + 8 * 10 + 10);
    EXPECT_EQ(untied.parameter_count(ParameterUse::matmul_weight), 4 * 64 + 8 * 32 + 32 * 8 + 8 * 10);
}

// The shape's count against the tensors the lab's own TinyGpt allocates.
TEST(ModelShape, TinyGptParametersMatchTheModelsTensors) {
    for (const bool tied : {true, false}) {
        CpuBackend backend;
        const TransformerShapeSpec s = tiny_gpt_spec();
        TinyGpt gpt(backend, {.vocabulary = s.vocabulary, .context = s.positions, .width = s.width, .heads = s.heads,
                              .layers = s.layers, .tied_head = tied});
        std::int64_t held = 0;
        for (const Parameter* p : gpt.parameters()) held += static_cast<std::int64_t>(p->value.size());
        EXPECT_EQ(gpt_shape(s, tied).parameter_count(), held) << "tied " << tied;
    }
}

// BERT-Large's published shape, counted term by term: 335,141,888, the
// figure of BertModel (the article rounds it to 340M).
TEST(ModelShape, BertLargeParameterCount) {
    const std::int64_t d = 1024, f = 4096;
    const std::int64_t embeddings = (30522 + 512 + 2) * d + 2 * d;  // word, position, token type, LayerNorm
    const std::int64_t attention = 4 * (d * d + d) + 2 * d;         // q, k, v, output, LayerNorm
    const std::int64_t feed_forward = (d * f + f) + (f * d + d) + 2 * d;
    const std::int64_t pooler = d * d + d;
    const std::int64_t expected = embeddings + 24 * (attention + feed_forward) + pooler;
    EXPECT_EQ(expected, 335'141'888);
    const ModelShape bert = bert_large_shape(2, 128);
    EXPECT_EQ(bert.parameter_count(), expected);
    EXPECT_EQ(bert.parameter_count(ParameterUse::matmul_weight) + bert.parameter_count(ParameterUse::matmul_bias),
              24 * (4 * (d * d + d) + (d * f + f) + (f * d + d)) + pooler);
}

// 2-8-8-3 with BatchNorm, batch 5: gains and biases trained like LayerNorm's;
// inputs saved, two statistics per feature in FP32; a running mean and
// variance per feature held as buffers, in FP32 under autocast and in the
// weights' format in a model cast to 16 bits.
TEST(FrameworkLedger, BatchNormKeepsRunningStatisticsAsBuffers) {
    const ModelShape s =
        mlp_shape({.widths = {2, 8, 8, 3}, .activation = Activation::relu, .batch_norm = true, .rows = 5});
    EXPECT_EQ(s.parameter_count(), 24 + 16 + 72 + 16 + 27);
    EXPECT_EQ(s.buffers, 2 * (8 + 8));
    const auto saved = saved_by_what(s);
    EXPECT_EQ(saved.at("BatchNorm inputs"), 5 * (8 + 8));
    EXPECT_EQ(saved.at("BatchNorm feature statistics"), 2 * (8 + 8));
    const std::map<Key, std::int64_t> amp{
        {{HeldClass::weights, FormatId::fp32}, 155 + 32},
        {{HeldClass::weight_copies, FormatId::fp16}, 104 + 19},
        {{HeldClass::gradients, FormatId::fp32}, 155},
        {{HeldClass::optimizer_state, FormatId::fp32}, 2 * 155},
        {{HeldClass::activations, FormatId::fp16}, 90},           // Linear inputs
        {{HeldClass::activations, FormatId::fp32}, 80 + 32 + 15},  // BatchNorm, its statistics, the loss
    };
    EXPECT_EQ(elements_by_class(framework_ledger(s, recipe(Recipe::amp_fp16), adamw())), amp);
    const auto pure = elements_by_class(framework_ledger(s, recipe(Recipe::fp16_pure, false), adamw()));
    EXPECT_EQ(pure.at({HeldClass::weights, FormatId::fp16}), 155 + 32);
    EXPECT_FALSE(pure.contains({HeldClass::weights, FormatId::fp32}));
}

TEST(FrameworkLedger, AmpKeepsFp32WeightsAndAddsSixteenBitCopies) {
    const FrameworkLedger l = framework_ledger(small_mlp(), recipe(Recipe::amp_fp16), adamw());
    const std::map<Key, std::int64_t> expected{
        {{HeldClass::weights, FormatId::fp32}, 155},
        {{HeldClass::weight_copies, FormatId::fp16}, 104 + 19},
        {{HeldClass::gradients, FormatId::fp32}, 155},
        {{HeldClass::optimizer_state, FormatId::fp32}, 2 * 155},
        {{HeldClass::activations, FormatId::fp16}, 90},           // Linear inputs
        {{HeldClass::activations, FormatId::fp32}, 80 + 20 + 15},  // LayerNorm, its statistics, the loss
    };
    EXPECT_EQ(elements_by_class(l), expected);
    EXPECT_EQ(l.total_bytes(), 155 * 4 + 123 * 2 + 155 * 4 + 310 * 4 + 90 * 2 + 115 * 4);
    EXPECT_EQ(l.parameter_side_bytes(), 155 * 4 + 123 * 2 + 155 * 4 + 310 * 4);
}

TEST(FrameworkLedger, Fp32AndTf32HoldEverythingInFp32) {
    for (const Recipe r : {Recipe::fp32, Recipe::tf32}) {
        const FrameworkLedger l = framework_ledger(small_mlp(), recipe(r), sgd(0.9f));
        const std::map<Key, std::int64_t> expected{
            {{HeldClass::weights, FormatId::fp32}, 155},
            {{HeldClass::gradients, FormatId::fp32}, 155},
            {{HeldClass::optimizer_state, FormatId::fp32}, 155},  // one momentum buffer
            {{HeldClass::activations, FormatId::fp32}, 90 + 80 + 20 + 15},
        };
        EXPECT_EQ(elements_by_class(l), expected) << recipe_name(r);
        EXPECT_EQ(l.total_bytes(), (3 * 155 + 205) * 4);
    }
    EXPECT_EQ(framework_ledger(small_mlp(), recipe(Recipe::fp32), sgd(0.0f)).bytes(HeldClass::optimizer_state), 0);
}

TEST(FrameworkLedger, PureRecipesWithAndWithoutMasters) {
    const FrameworkLedger with = framework_ledger(small_mlp(), recipe(Recipe::fp16_pure, true), adamw());
    const std::map<Key, std::int64_t> expected_with{
        {{HeldClass::weights, FormatId::fp16}, 155},
        {{HeldClass::weights, FormatId::fp32}, 155},
        {{HeldClass::gradients, FormatId::fp16}, 155},
        {{HeldClass::gradients, FormatId::fp32}, 155},
        {{HeldClass::optimizer_state, FormatId::fp32}, 310},
        {{HeldClass::activations, FormatId::fp16}, 90},
        {{HeldClass::activations, FormatId::fp32}, 115},
    };
    EXPECT_EQ(elements_by_class(with), expected_with);
    const FrameworkLedger without = framework_ledger(small_mlp(), recipe(Recipe::bf16_pure, false), adamw());
    const std::map<Key, std::int64_t> expected_without{
        {{HeldClass::weights, FormatId::bf16}, 155},
        {{HeldClass::gradients, FormatId::bf16}, 155},
        {{HeldClass::optimizer_state, FormatId::bf16}, 310},  // torch.optim's state takes the parameter's dtype
        {{HeldClass::activations, FormatId::bf16}, 90},
        {{HeldClass::activations, FormatId::fp32}, 115},
    };
    EXPECT_EQ(elements_by_class(without), expected_without);
    EXPECT_EQ(without.total_bytes(), (4 * 155 + 90) * 2 + 115 * 4);
}

TEST(FrameworkLedger, Fp8CastsLinearWeightsToOneByte) {
    const FrameworkLedger l = framework_ledger(small_mlp(), recipe(Recipe::fp8), adamw());
    const std::map<Key, std::int64_t> expected{
        {{HeldClass::weights, FormatId::fp32}, 155},
        {{HeldClass::weight_copies, FormatId::e4m3}, 104},  // weights only: biases are added in FP32
        {{HeldClass::gradients, FormatId::fp32}, 155},
        {{HeldClass::optimizer_state, FormatId::fp32}, 310},
        {{HeldClass::activations, FormatId::fp32}, 205},
    };
    EXPECT_EQ(elements_by_class(l), expected);
    EXPECT_EQ(l.bytes(HeldClass::weight_copies), 104);
}

TEST(FrameworkLedger, OpsOffTheFp32ListStoreInSixteenBits) {
    PrecisionConfig p = recipe(Recipe::amp_bf16);
    p.fp32_ops = {};
    const FrameworkLedger l = framework_ledger(small_mlp(), p, adamw());
    EXPECT_EQ(l.bytes(HeldClass::activations), (90 + 80 + 15) * 2 + 20 * 4);  // the statistics stay FP32
}

}  // namespace
}  // namespace plab
