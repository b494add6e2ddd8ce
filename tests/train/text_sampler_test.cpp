// Greedy text samples (engine/train/text_sampler.h): the prompts are the
// held-out text's own characters, each written character is the argmax of a
// forward computed here apart from the sampler (its own tensors, its window
// slid by hand), each side writes in its own formats, and the trainer takes
// them on exactly the sample steps.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/amp/precision_policy.h"
#include "engine/backend/cpu/cpu_backend.h"
#include "engine/model/tiny_gpt.h"
#include "engine/train/text_sampler.h"
#include "engine/train/trainer.h"
#include "format_test_name.h"
#include "trainer_test_util.h"

namespace plab {
namespace {

using trainer_test::preset_with;

TEST(GreedyToken, TakesTheFirstLargestAndNaNNeverWins) {
    const float nan = std::numeric_limits<float>::quiet_NaN();
    const float ties[] = {0.5f, 2.0f, -1.0f, 2.0f};
    EXPECT_EQ(greedy_token(ties, 4), 1);
    const float nan_first[] = {nan, -3.0f, -2.0f, nan};
    EXPECT_EQ(greedy_token(nan_first, 4), 2);
    const float all_nan[] = {nan, nan};
    EXPECT_EQ(greedy_token(all_nan, 2), 0);
    const float infinite[] = {1.0f, std::numeric_limits<float>::infinity(), 3.0f};
    EXPECT_EQ(greedy_token(infinite, 3), 1);
}

// A one-block GPT over the data's alphabet with weights drawn from a seed,
// large enough that its logits are far apart.
struct SeededGpt {
    CpuBackend be;
    TinyGpt gpt;

    SeededGpt(int vocabulary, int context, float spread = 0.5f)
        : gpt(be, {.vocabulary = vocabulary, .context = context, .width = 16, .heads = 2, .layers = 1}) {
        std::mt19937 rng(5);
        std::normal_distribution<float> normal(0.0f, spread);
        for (Parameter* p : gpt.parameters()) {
            std::vector<float> v(p->value.size());
            for (float& x : v) x = p->name.ends_with(".gamma") ? 1.0f : normal(rng);
            set_parameter(be, *p, v.data());
        }
    }

    // The first largest logit after every position of one window, from a
    // forward of this test's own tensors.
    std::vector<int> next_tokens(const std::vector<float>& window, const PassFormats& formats) {
        const int context = static_cast<int>(window.size());
        Tensor ids = be.allocate({context, 1}, FormatId::fp32), targets = be.allocate({context, 1}, FormatId::fp32);
        be.upload(window.data(), ids);
        const std::vector<float> zeros(window.size(), 0.0f);
        be.upload(zeros.data(), targets);
        (void)gpt.forward(be, ids, targets, formats);
        std::vector<float> logits(gpt.logits().size());
        be.download(gpt.logits(), logits.data());
        const std::size_t vocabulary = logits.size() / window.size();
        std::vector<int> best;
        for (std::size_t r = 0; r < window.size(); ++r) {
            const float* row = logits.data() + r * vocabulary;
            best.push_back(static_cast<int>(std::max_element(row, row + vocabulary) - row));
        }
        return best;
    }
};

std::vector<float> ids_of(const std::vector<std::uint8_t>& tokens, std::size_t from, std::size_t count) {
    const auto first = tokens.begin() + static_cast<std::ptrdiff_t>(from);
    return {first, first + static_cast<std::ptrdiff_t>(count)};
}

class FreeText : public ::testing::TestWithParam<FormatId> {};

TEST_P(FreeText, ContinuesTheTestTextsStartOneArgmaxAtATime) {
    const int context = 8, chars = 40;
    const TokenData data = make_token_data({.task = TokenTask::shakespeare}, 1);
    SeededGpt m(data.vocabulary(), context, 0.3f);
    const PassFormats formats = PassFormats::uniform(GetParam(), m.gpt.matmul_count());
    TextSampler sampler(m.be, data, context, chars);

    const TextSamples blank = sampler.prompts(30);
    EXPECT_EQ(blank.step, 30);
    ASSERT_EQ(blank.samples.size(), 1u);
    std::string start;
    for (int i = 0; i < context; ++i) start += data.alphabet[data.test[static_cast<std::size_t>(i)]];
    EXPECT_EQ(blank.samples[0].prompt, start);
    EXPECT_EQ(blank.samples[0].expected, "");

    const std::vector<std::string> written = sampler.write(m.gpt, formats);
    ASSERT_EQ(written.size(), 1u);
    ASSERT_EQ(written[0].size(), static_cast<std::size_t>(chars));
    const auto greedy = [&](const PassFormats& f) {
        std::vector<float> window = ids_of(data.test, 0, context);
        std::string text;
        for (int k = 0; k < chars; ++k) {
            const int next = m.next_tokens(window, f).back();
            text += data.alphabet[static_cast<std::size_t>(next)];
            window.erase(window.begin());
            window.push_back(static_cast<float>(next));
        }
        return text;
    };
    const std::string expected = greedy(formats);
    EXPECT_EQ(written[0], expected);
    // This model's FP16 and BF16 text leaves its FP32 text within the 40
    // characters, so a sampler that ignored the formats would fail above.
    if (GetParam() != FormatId::fp32) {
        EXPECT_NE(expected, greedy(PassFormats::uniform(FormatId::fp32, m.gpt.matmul_count())));
    }
    // The model says something other than one character over and over, so
    // the sliding is seen at work.
    EXPECT_NE(expected.find_first_not_of(expected[0]), std::string::npos) << expected;
}

INSTANTIATE_TEST_SUITE_P(Formats, FreeText, ::testing::Values(FormatId::fp32, FormatId::fp16, FormatId::bf16),
                         test::format_test_name);

// Addition: the first test problems, their true answers, and each answer's
// first digit as the forward of the whole true example predicts it (the
// digits after a position never reach its logits, so the sampler's window,
// which does not hold them, must agree).
TEST(TextSampler, AnswersTheFirstTestProblemsDigitByDigit) {
    const TokenDataSpec spec{.task = TokenTask::addition, .digits = 2, .samples = 400};
    const TokenData data = make_token_data(spec, 3);
    const int context = data.example_length - 1;
    SeededGpt m(data.vocabulary(), context);
    const PassFormats formats = PassFormats::uniform(FormatId::fp32, m.gpt.matmul_count());
    TextSampler sampler(m.be, data, context, 80);

    const TextSamples blank = sampler.prompts(1);
    ASSERT_EQ(blank.samples.size(), static_cast<std::size_t>(kAdditionSamples));
    const std::vector<std::string> written = sampler.write(m.gpt, formats);
    ASSERT_EQ(written.size(), blank.samples.size());
    const std::string test_text = data.text(data.test);
    for (std::size_t e = 0; e < blank.samples.size(); ++e) {
        // "12+34=64\n" with the sum's digits lowest first, as the data holds it.
        const std::string example = test_text.substr(e * static_cast<std::size_t>(data.example_length),
                                                     static_cast<std::size_t>(data.example_length));
        const std::size_t equals = example.find('=');
        ASSERT_NE(equals, std::string::npos) << example;
        EXPECT_EQ(blank.samples[e].prompt, example.substr(0, equals + 1));
        EXPECT_EQ(blank.samples[e].expected, example.substr(equals + 1, example.size() - equals - 2));
        ASSERT_EQ(written[e].size(), blank.samples[e].expected.size());
        const std::vector<float> whole = ids_of(data.test, e * static_cast<std::size_t>(data.example_length),
                                                static_cast<std::size_t>(context));
        const int first = m.next_tokens(whole, formats)[equals];
        EXPECT_EQ(written[e][0], data.alphabet[static_cast<std::size_t>(first)]) << example;
    }
}

// Steps 3, 6 and the last (7) take samples, the others none; in FP32 the
// mixed model is its twin, so both write the same text.
TEST(TrainerSamples, TakenEverySampleEveryStepsAndOnTheLast) {
    const RunConfig config =
        preset_with("tiny-gpt-fp32", {"model.layers=1", "model.width=16", "model.heads=2", "model.context=8",
                                      "batch_size=4", "steps=7", "telemetry.hist_every=0",
                                      "telemetry.sample_every=3", "telemetry.sample_chars=12"});
    CpuBackend backend;
    Trainer trainer(backend, config);
    const TokenData data = make_token_data(token_data_spec(config.data), config.seed);
    std::string start;
    for (int i = 0; i < 8; ++i) start += data.alphabet[data.test[static_cast<std::size_t>(i)]];
    for (int s = 1; s <= 7; ++s) {
        const StepRecord r = trainer.step();
        const bool due = s == 3 || s == 6 || s == 7;
        ASSERT_EQ(r.samples != nullptr, due) << "step " << s;
        if (!due) continue;
        EXPECT_EQ(r.samples->step, s);
        ASSERT_EQ(r.samples->samples.size(), 1u);
        const TextSample& t = r.samples->samples[0];
        EXPECT_EQ(t.prompt, start);
        EXPECT_EQ(t.model.size(), 12u);
        EXPECT_EQ(t.model, t.twin) << "step " << s;
    }
}

// Without samples asked for, a GPT's records carry none.
TEST(TrainerSamples, NoneWhenSampleEveryIsZero) {
    const RunConfig config = preset_with("tiny-gpt-amp-fp16", {"model.layers=1", "model.width=16", "model.heads=2",
                                                               "model.context=8", "batch_size=4", "steps=2",
                                                               "telemetry.sample_every=0"});
    CpuBackend backend;
    Trainer trainer(backend, config);
    for (int s = 1; s <= 2; ++s) EXPECT_EQ(trainer.step().samples, nullptr);
}

}  // namespace
}  // namespace plab
