// The language-model data: the built-in corpus, the addition task with
// answers checked by arithmetic, seeded windows and the exact-match score.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "engine/common/error.h"
#include "engine/data/corpus_text.h"
#include "engine/data/token_data.h"

namespace plab {
namespace {

std::string window_text(const TokenData& data, const std::vector<float>& ids, std::size_t first, std::size_t count) {
    std::string s;
    for (std::size_t i = first; i < first + count; ++i) s += data.alphabet[static_cast<std::size_t>(ids[i])];
    return s;
}

TEST(Corpus, IsTheShippedTextWhole) {
    const std::string_view text = shakespeare_corpus();
    EXPECT_EQ(text.size(), 262063u);
    EXPECT_TRUE(text.starts_with("First Citizen:\nBefore we proceed any further, hear me speak."));
    EXPECT_TRUE(text.ends_with("Be of good cheer: mother, how fares your grace?\n"));
}

TEST(Shakespeare, SplitsTheTextIntoTrainThenTest) {
    const TokenData data = make_token_data({}, 1);
    EXPECT_EQ(data.vocabulary(), 62);
    EXPECT_EQ(data.alphabet.front(), '\n');
    EXPECT_EQ(data.text(data.train) + data.text(data.test), std::string(shakespeare_corpus()));
    EXPECT_EQ(data.test.size(), 26206u);  // round(262063 * 0.1)
    EXPECT_EQ(data.example_length, 0);
}

TEST(Shakespeare, WindowsAreStretchesOfTheTrainingTextDrawnFromTheSeed) {
    const TokenData data = make_token_data({}, 1);
    const std::string train = data.text(data.train);
    const int context = 16, windows = 8;
    WindowSampler a(data, context, windows, 7), b(data, context, windows, 7), c(data, context, windows, 8);
    const TokenBatch first = a.next();
    EXPECT_EQ(first.ids, b.next().ids);
    EXPECT_NE(first.ids, c.next().ids);
    for (int w = 0; w < windows; ++w) {
        const std::size_t at = static_cast<std::size_t>(w * context);
        const std::string ids = window_text(data, first.ids, at, context);
        const std::string targets = window_text(data, first.targets, at, context);
        const std::size_t where = train.find(ids + targets.back());
        ASSERT_NE(where, std::string::npos) << ids;
        EXPECT_EQ(ids.substr(1), targets.substr(0, context - 1));
    }
    const TokenBatch test = test_windows(data, context, 4);
    EXPECT_EQ(window_text(data, test.ids, 0, 4 * context), data.text(data.test).substr(0, 4 * context));
}

TEST(Addition, EveryExampleIsASumWithItsDigitsReversedAndNoPairRepeats) {
    const TokenDataSpec spec{.task = TokenTask::addition, .digits = 3, .samples = 2000};
    const TokenData data = make_token_data(spec, 3);
    EXPECT_EQ(data.vocabulary(), 13);
    EXPECT_EQ(data.example_length, 13);
    EXPECT_EQ(fixed_context(spec), 12);
    const std::string all = data.text(data.train) + data.text(data.test);
    ASSERT_EQ(all.size(), 2000u * 13u);
    EXPECT_EQ(data.test.size(), 200u * 13u);
    std::set<std::string> prompts;
    for (std::size_t at = 0; at < all.size(); at += 13) {
        const std::string ex = all.substr(at, 13);
        ASSERT_EQ(ex[3], '+');
        ASSERT_EQ(ex[7], '=');
        ASSERT_EQ(ex[12], '\n');
        const int a = std::stoi(ex.substr(0, 3)), b = std::stoi(ex.substr(4, 3));
        const std::string answer(ex.rbegin() + 1, ex.rbegin() + 5);  // the four digits, read back in order
        EXPECT_EQ(std::stoi(answer), a + b) << ex;
        EXPECT_TRUE(prompts.insert(ex.substr(0, 8)).second) << "repeated " << ex;
    }
}

TEST(Addition, AnEpochVisitsEveryTrainingExampleOnce) {
    const TokenData data = make_token_data({.task = TokenTask::addition, .digits = 2, .samples = 100}, 5);
    const int context = 3 * 2 + 3, windows = 10;  // 90 training examples: 9 batches an epoch
    WindowSampler sampler(data, context, windows, 11);
    std::multiset<std::string> seen;
    for (int batch = 0; batch < 9; ++batch) {
        const TokenBatch& b = sampler.next();
        for (int w = 0; w < windows; ++w) seen.insert(window_text(data, b.ids, static_cast<std::size_t>(w * context), context));
    }
    std::multiset<std::string> want;
    const std::string train = data.text(data.train);
    for (std::size_t at = 0; at < train.size(); at += 10) want.insert(train.substr(at, 9));
    EXPECT_EQ(seen, want);
    EXPECT_THROW(WindowSampler(data, 12, 4, 1), Error);  // the task fixes the context
}

TEST(Addition, ExactMatchCountsWindowsWhoseEveryAnswerDigitIsTheTopToken) {
    const TokenData data = make_token_data({.task = TokenTask::addition, .digits = 2, .samples = 100}, 5);
    const int context = 9;
    const TokenBatch test = test_windows(data, context, 1000);
    const std::size_t windows = test.ids.size() / context;
    ASSERT_EQ(windows, 10u);
    const auto v = static_cast<std::size_t>(data.vocabulary());
    std::vector<float> probs(test.ids.size() * v, 0.0f);
    for (std::size_t row = 0; row < test.ids.size(); ++row) probs[row * v + static_cast<std::size_t>(test.targets[row])] = 1.0f;
    EXPECT_EQ(exact_match(data, test, context, probs), 1.0);
    // Wrong: window 4's last answer digit and window 2's first; window 6's
    // operand and window 7's newline, which are not scored.
    auto miss = [&](std::size_t row) { probs[row * v + static_cast<std::size_t>(test.targets[row])] = 0.0f; };
    const std::size_t first_digit = static_cast<std::size_t>(data.answer_start - 1);
    miss(4 * context + first_digit + static_cast<std::size_t>(data.answer_digits) - 1);
    miss(2 * context + first_digit);
    miss(6 * context);
    miss(7 * context + first_digit + static_cast<std::size_t>(data.answer_digits));
    EXPECT_DOUBLE_EQ(exact_match(data, test, context, probs), 0.8);
}

// Each window a stream of random tokens: its targets are its ids shifted by
// one, every token of the vocabulary turns up, and the same seed draws the
// same windows.
TEST(Garble, WindowsAreShiftedStreamsOfRandomTokens) {
    constexpr int kContext = 8, kWindows = 64, kVocabulary = 5;
    std::vector<float> ids(kContext * kWindows, -1.0f), targets(ids.size(), -1.0f);
    Rng rng(7);
    garble(ids, targets, kContext, kVocabulary, rng);
    std::set<float> seen;
    for (int w = 0; w < kWindows; ++w)
        for (int t = 0; t < kContext; ++t) {
            const float id = ids[static_cast<std::size_t>(w * kContext + t)];
            ASSERT_TRUE(id >= 0 && id < kVocabulary && id == static_cast<int>(id)) << id;
            seen.insert(id);
            if (t + 1 < kContext) {
                EXPECT_EQ(targets[static_cast<std::size_t>(w * kContext + t)],
                          ids[static_cast<std::size_t>(w * kContext + t + 1)]);
            }
        }
    EXPECT_EQ(seen.size(), static_cast<std::size_t>(kVocabulary));
    std::vector<float> again_ids(ids.size()), again_targets(ids.size());
    Rng same(7);
    garble(again_ids, again_targets, kContext, kVocabulary, same);
    EXPECT_EQ(again_ids, ids);
    EXPECT_EQ(again_targets, targets);
}

TEST(TokenDataSpec, BadFieldsAreNamed) {
    for (const auto& [spec, field] :
         std::vector<std::pair<TokenDataSpec, std::string>>{{{.task = TokenTask::addition, .digits = 7}, "data.digits"},
                                                            {{.task = TokenTask::addition, .samples = 10}, "data.samples"},
                                                            {{.test_fraction = 0.9}, "data.test_fraction"}}) {
        try {
            validate(spec);
            ADD_FAILURE() << field << " accepted";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find(field), std::string::npos) << e.what();
        }
    }
    EXPECT_EQ(parse_token_task("addition"), TokenTask::addition);
    EXPECT_EQ(token_task_choices(), "shakespeare|addition");
}

}  // namespace
}  // namespace plab
