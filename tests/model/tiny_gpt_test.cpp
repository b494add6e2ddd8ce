// The language model's ops and its backward: each op against its definition
// worked out independently, the whole model's gradients against central
// finite differences of an FP64 implementation (reference_gpt.h).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/model/tiny_gpt.h"
#include "engine/numeric/scalar_cast.h"
#include "reference_gpt.h"

namespace plab {
namespace {

Tensor make(CpuBackend& be, Shape s, FormatId dtype, const std::vector<float>& values) {
    Tensor t = be.allocate(s, dtype);
    be.upload(values.data(), t);
    return t;
}

std::vector<float> host(const Tensor& t) { return {t.host(), t.host() + t.size()}; }

// Values k/8 for small integers k: every sum of a few of them is exact in FP32.
std::vector<float> eighths(std::size_t n, unsigned seed) {
    std::mt19937 rng(seed);
    std::vector<float> v(n);
    for (float& x : v) x = static_cast<float>(static_cast<int>(rng() % 33) - 16) / 8.0f;
    return v;
}

TEST(CausalSoftmax, EachQueryKeepsTheKeysUpToItsOwnPosition) {
    CpuBackend be;
    const int rows = 2, t = 3;
    std::vector<float> xv = eighths(rows * t * t, 1);
    xv[1] = std::numeric_limits<float>::infinity();  // query 0's key 1: masked, so harmless
    xv[2] = std::numeric_limits<float>::quiet_NaN();  // query 0's key 2
    const Tensor x = make(be, {rows, t * t}, FormatId::fp32, xv);
    Tensor probs = be.allocate(x.shape(), FormatId::fp32);
    be.scaled_softmax(x, 0.5f, t, FormatId::fp32, true, probs);
    const std::vector<float> p = host(probs);
    for (int row = 0; row < rows; ++row)
        for (int i = 0; i < t; ++i) {
            const std::size_t first = static_cast<std::size_t>(row * t * t + i * t);
            double top = -1e300, sum = 0;
            for (int j = 0; j <= i; ++j) top = std::max(top, 0.5 * xv[first + j]);
            for (int j = 0; j <= i; ++j) sum += std::exp(0.5 * xv[first + j] - top);
            for (int j = 0; j < t; ++j) {
                const double want = j <= i ? std::exp(0.5 * xv[first + j] - top) / sum : 0.0;
                EXPECT_NEAR(p[first + j], want, 2e-7) << "row " << row << " query " << i << " key " << j;
                if (j > i) {
                    EXPECT_EQ(p[first + j], 0.0f);
                }
            }
        }
    // Without the mask the Inf makes query 0's group NaN.
    be.scaled_softmax(x, 0.5f, t, FormatId::fp32, false, probs);
    EXPECT_TRUE(std::isnan(probs.host()[0]));
}

TEST(CausalSoftmax, RowsMustHoldWholeScoreBlocks) {
    CpuBackend be;
    const Tensor x = be.allocate({2, 6}, FormatId::fp32);  // groups of 3, but not 3x3 blocks
    Tensor probs = be.allocate(x.shape(), FormatId::fp32);
    EXPECT_THROW(be.scaled_softmax(x, 1.0f, 3, FormatId::fp32, true, probs), Error);
    EXPECT_NO_THROW(be.scaled_softmax(x, 1.0f, 3, FormatId::fp32, false, probs));
}

TEST(Heads, SplitPutsEachHeadsTokensInOneRowAndMergeUndoesIt) {
    CpuBackend be;
    const int sequences = 2, context = 3, heads = 2, width = 4;
    std::vector<float> xv(static_cast<std::size_t>(sequences * context * heads * width));
    for (std::size_t i = 0; i < xv.size(); ++i) xv[i] = static_cast<float>(i) + 0.25f;
    const Tensor x = make(be, {sequences * context, heads * width}, FormatId::fp32, xv);
    Tensor split = be.allocate({sequences * heads, context * width}, FormatId::fp32);
    be.split_heads(x, context, heads, split);
    for (int s = 0; s < sequences; ++s)
        for (int h = 0; h < heads; ++h)
            for (int t = 0; t < context; ++t)
                for (int c = 0; c < width; ++c)
                    ASSERT_EQ(split.host()[(s * heads + h) * context * width + t * width + c],
                              xv[static_cast<std::size_t>((s * context + t) * heads * width + h * width + c)]);
    Tensor merged = be.allocate(x.shape(), FormatId::fp32);
    be.merge_heads(split, context, heads, merged);
    EXPECT_EQ(host(merged), xv);
    Tensor wrong = be.allocate({sequences, context * width}, FormatId::fp32);
    EXPECT_THROW(be.split_heads(x, context, heads, wrong), Error);
}

TEST(Heads, SplitRoundsToTheOutputsFormat) {
    CpuBackend be;
    const Tensor x = make(be, {2, 2}, FormatId::fp32, {1.0f + 0x1p-12f, 3.0f, 70000.0f, -0.1f});
    Tensor out = be.allocate({1, 4}, FormatId::fp16);  // one sequence of two tokens, one head
    be.split_heads(x, 2, 1, out);
    EXPECT_EQ(host(out), (std::vector<float>{1.0f, 3.0f, std::numeric_limits<float>::infinity(),
                                             round_to(FormatId::fp16, -0.1f)}));
}

TEST(Embedding, AddsTheTokensRowToItsPositionsRow) {
    CpuBackend be;
    const int vocabulary = 5, context = 3, width = 4, rows = 6;
    const std::vector<float> tok = eighths(vocabulary * width, 2), pos = eighths(context * width, 3);
    const std::vector<float> idv = {4, 0, 2, 2, 1, 4};
    const Tensor ids = make(be, {rows, 1}, FormatId::fp32, idv);
    const Tensor tokens = make(be, {vocabulary, width}, FormatId::fp32, tok);
    const Tensor positions = make(be, {context, width}, FormatId::fp32, pos);
    Tensor out = be.allocate({rows, width}, FormatId::fp32);
    be.embedding_forward(ids, tokens, positions, out);
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < width; ++c)
            EXPECT_EQ(out.host()[r * width + c],
                      tok[static_cast<std::size_t>(idv[r]) * width + c] + pos[(r % context) * width + c]);

    // Each table row's gradient: the rows that used it, summed (exact in FP32 for these values).
    const std::vector<float> dv = eighths(rows * width, 4);
    const Tensor dout = make(be, {rows, width}, FormatId::fp32, dv);
    Tensor dtok = be.allocate(tokens.shape(), FormatId::fp32), dpos = be.allocate(positions.shape(), FormatId::fp32);
    be.embedding_backward(ids, dout, dtok, dpos);
    for (int v = 0; v < vocabulary; ++v)
        for (int c = 0; c < width; ++c) {
            double want = 0;
            for (int r = 0; r < rows; ++r)
                if (static_cast<int>(idv[r]) == v) want += dv[r * width + c];
            EXPECT_EQ(dtok.host()[v * width + c], want) << "token " << v;
        }
    for (int t = 0; t < context; ++t)
        for (int c = 0; c < width; ++c)
            EXPECT_EQ(dpos.host()[t * width + c], dv[t * width + c] + dv[(t + context) * width + c]);
}

TEST(Embedding, ABadIdIsAnErrorNamingTheRowAndTheVocabulary) {
    CpuBackend be;
    const Tensor tokens = be.allocate({5, 2}, FormatId::fp32), positions = be.allocate({2, 2}, FormatId::fp32);
    Tensor out = be.allocate({2, 2}, FormatId::fp32);
    for (float bad : {5.0f, -1.0f, 1.5f, std::numeric_limits<float>::quiet_NaN()}) {
        const Tensor ids = make(be, {2, 1}, FormatId::fp32, {0.0f, bad});
        try {
            be.embedding_forward(ids, tokens, positions, out);
            ADD_FAILURE() << "id " << bad << " accepted";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("row 1"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("0..4"), std::string::npos) << e.what();
        }
    }
    const Tensor partial = be.allocate({3, 1}, FormatId::fp32);  // not whole windows of 2
    Tensor out3 = be.allocate({3, 2}, FormatId::fp32);
    EXPECT_THROW(be.embedding_forward(partial, tokens, positions, out3), Error);
}

TEST(GptSpec, ValidationNamesTheField) {
    GptSpec spec{.vocabulary = 10, .width = 64, .heads = 5};
    try {
        validate(spec);
        FAIL() << "heads 5 of width 64 accepted";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("model.heads"), std::string::npos) << e.what();
    }
    spec.heads = 4;
    EXPECT_NO_THROW(validate(spec));
    spec.vocabulary = 1;
    EXPECT_THROW(validate(spec), Error);
}

TEST(TinyGpt, NamesItsMatmulLayersInForwardOrder) {
    CpuBackend be;
    TinyGpt gpt(be, {.vocabulary = 7, .context = 4, .width = 8, .heads = 2, .layers = 2});
    const std::vector<std::string> names = gpt.matmul_names();
    ASSERT_EQ(static_cast<int>(names.size()), gpt.matmul_count());
    EXPECT_EQ(names.front(), "h0.attn.q");
    EXPECT_EQ(names[3], "h0.attn.proj");
    EXPECT_EQ(names[5], "h0.mlp.proj");
    EXPECT_EQ(names[6], "h1.attn.q");
    EXPECT_EQ(names.back(), "head");
    EXPECT_FLOAT_EQ(gpt.logit_scale(), 0.5f);  // 1/sqrt(8/2)
}

struct GradientCase {
    bool tied;
    float logit_scale;
};
void PrintTo(const GradientCase& c, std::ostream* os) {
    *os << (c.tied ? "tied" : "untied") << " head, logit scale " << c.logit_scale;
}

// Weights k/16 and a batch of two windows: a GPT whose forward the tests below read.
struct SmallGpt {
    CpuBackend be;
    TinyGpt gpt;
    Tensor ids, targets;

    explicit SmallGpt(const GptSpec& spec) : gpt(be, spec) {
        std::mt19937 rng(9);
        for (Parameter* p : gpt.parameters()) {
            std::vector<float> v(p->value.size());
            for (float& x : v) x = p->name.ends_with(".gamma") ? 1.0f : static_cast<float>(static_cast<int>(rng() % 17) - 8) / 16.0f;
            set_parameter(be, *p, v.data());
        }
        const int rows = 2 * spec.context;
        std::vector<float> idv(rows), tv(rows);
        for (int r = 0; r < rows; ++r) {
            idv[r] = static_cast<float>(rng() % static_cast<unsigned>(spec.vocabulary));
            tv[r] = static_cast<float>(rng() % static_cast<unsigned>(spec.vocabulary));
        }
        ids = make(be, {rows, 1}, FormatId::fp32, idv);
        targets = make(be, {rows, 1}, FormatId::fp32, tv);
    }
    PassFormats formats(FormatId compute, bool fp32_softmax) const {
        PassFormats f = PassFormats::uniform(compute, gpt.matmul_count());
        f.attention.fp32_softmax = fp32_softmax;
        return f;
    }
};

// The lesson the tiny-gpt scenarios teach: with a large logit scale the
// scaled logits pass 65504, so a softmax computed in FP16 turns the loss to
// NaN; kept on the FP32 list the same FP16 model trains on.
TEST(TinyGpt, LargeLogitsOverflowAnFp16SoftmaxButNotAnFp32One) {
    SmallGpt m({.vocabulary = 11, .context = 4, .width = 8, .heads = 2, .layers = 1, .logit_scale = 30000.0f});
    EXPECT_TRUE(std::isnan(m.gpt.forward(m.be, m.ids, m.targets, m.formats(FormatId::fp16, false))));
    EXPECT_TRUE(std::isfinite(m.gpt.forward(m.be, m.ids, m.targets, m.formats(FormatId::fp16, true))));
}

// An FP16 pass with loss scale 1024, unscaled, gives the FP32 gradients up to
// FP16 rounding: the formats reach every op of both passes.
TEST(TinyGpt, UnscaledFp16GradientsTrackFp32) {
    SmallGpt m({.vocabulary = 11, .context = 4, .width = 8, .heads = 2, .layers = 2});
    std::vector<std::vector<float>> full;
    const float loss32 = m.gpt.forward(m.be, m.ids, m.targets, m.formats(FormatId::fp32, true));
    m.gpt.backward(m.be, m.ids, m.targets, 1.0f);
    for (Parameter* p : m.gpt.parameters()) full.push_back(host(p->grad));
    const float loss16 = m.gpt.forward(m.be, m.ids, m.targets, m.formats(FormatId::fp16, true));
    m.gpt.backward(m.be, m.ids, m.targets, 1024.0f);
    EXPECT_NEAR(loss16, loss32, 0.01 * loss32);
    // The key bias's true gradient is zero (it shifts a query's logits all
    // alike): its rounding noise is measured against the model's largest gradient.
    double model_top = 0;
    for (const std::vector<float>& g : full)
        for (float v : g) model_top = std::max(model_top, std::fabs(static_cast<double>(v)));
    std::size_t i = 0;
    for (Parameter* p : m.gpt.parameters()) {
        const std::vector<float>& want = full[i++];
        double top = 0, err = 0;
        for (std::size_t k = 0; k < want.size(); ++k) {
            top = std::max(top, std::fabs(static_cast<double>(want[k])));
            err = std::max(err, std::fabs(p->grad.host()[k] / 1024.0 - want[k]));
        }
        EXPECT_LE(err, 0.02 * top + 1e-3 * model_top) << p->name;
        if (p->name.find(".attn.") != std::string::npos && p->name.ends_with(".weight")) {
            EXPECT_EQ(p->grad.dtype(), FormatId::fp16) << p->name;
        }
    }
}

class GptGradientCheck : public testing::TestWithParam<GradientCase> {};

// The backward of every op, through two blocks, against central differences
// of the FP64 forward: each parameter's gradient element by element.
TEST_P(GptGradientCheck, EveryParameterMatchesFiniteDifferences) {
    const GptSpec spec{.vocabulary = 7,
                       .context = 4,
                       .width = 8,
                       .heads = 2,
                       .layers = 2,
                       .tied_head = GetParam().tied,
                       .logit_scale = GetParam().logit_scale};
    CpuBackend be;
    TinyGpt gpt(be, spec);
    test::ReferenceGpt ref(spec, gpt.logit_scale());
    std::mt19937 rng(5);
    auto draw = [&] { return static_cast<float>(static_cast<int>(rng() % 2001) - 1000) / 2000.0f; };
    for (Parameter* p : gpt.parameters()) {
        std::vector<float> v(p->value.size());
        const bool gain = p->name.ends_with(".gamma");
        for (float& x : v) x = gain ? 1.0f + 0.5f * draw() : draw();
        set_parameter(be, *p, v.data());
        ref.params[p->name] = {v.begin(), v.end()};
    }
    const int sequences = 2, rows = sequences * spec.context;
    std::vector<int> ids(rows), targets(rows);
    std::vector<float> idf(rows), targetf(rows);
    for (int r = 0; r < rows; ++r) {
        ids[r] = static_cast<int>(rng() % 7);
        targets[r] = static_cast<int>(rng() % 7);
        idf[r] = static_cast<float>(ids[r]);
        targetf[r] = static_cast<float>(targets[r]);
    }
    const Tensor x = make(be, {rows, 1}, FormatId::fp32, idf), y = make(be, {rows, 1}, FormatId::fp32, targetf);

    const float loss = gpt.forward(be, x, y, PassFormats::uniform(FormatId::fp32, gpt.matmul_count()));
    EXPECT_NEAR(loss, ref.loss(ids, targets), 2e-6);
    gpt.backward(be, x, y, 1.0f);

    const double h = 1e-6;
    int checked = 0;
    for (Parameter* p : gpt.parameters()) {
        std::vector<double>& values = ref.params[p->name];
        for (std::size_t k = 0; k < values.size(); ++k) {
            const double saved = values[k];
            values[k] = saved + h;
            const double up = ref.loss(ids, targets);
            values[k] = saved - h;
            const double down = ref.loss(ids, targets);
            values[k] = saved;
            const double numeric = (up - down) / (2 * h);
            ASSERT_NEAR(p->grad.host()[k], numeric, 2e-5 + 1e-4 * std::fabs(numeric)) << p->name << "[" << k << "]";
            ++checked;
        }
    }
    EXPECT_GT(checked, 1500);
}

INSTANTIATE_TEST_SUITE_P(Heads, GptGradientCheck,
                         testing::Values(GradientCase{true, 0.0f}, GradientCase{false, 0.0f},
                                         GradientCase{true, 1.5f}),
                         [](const testing::TestParamInfo<GradientCase>& c) {
                             return std::string(c.param.tied ? "Tied" : "Untied") +
                                    (c.param.logit_scale > 0 ? "LargeLogitScale" : "UsualLogitScale");
                         });

}  // namespace
}  // namespace plab
