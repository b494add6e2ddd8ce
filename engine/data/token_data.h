#pragma once
// The data of the language-model presets: streams of character tokens.
//   shakespeare  the built-in corpus (corpus_text.h); its last test_fraction
//                is the test split, as a held-out stretch of the text.
//   addition     examples "a+b=" followed by the sum's digits in reverse
//                order (lowest first, as it is computed) and a newline:
//                "123+456=9750\n" for 3 digits. The answer has an exact
//                value, so accuracy is a number: exact_match() below.
// Training windows and their order derive from the run's seed alone.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/data/dataset.h"
#include "engine/data/random.h"

namespace plab {

enum class TokenTask : std::uint8_t { shakespeare, addition };
std::string_view token_task_name(TokenTask task);  // "shakespeare", "addition"
std::optional<TokenTask> parse_token_task(std::string_view name);
std::string token_task_choices();

struct TokenDataSpec {
    TokenTask task = TokenTask::shakespeare;
    int digits = 3;        // addition: digits of each operand
    int samples = 20000;   // addition: examples before the split
    double test_fraction = 0.1;

    bool operator==(const TokenDataSpec&) const = default;
};

// Throws plab::Error naming the first bad field ("data.digits"), its value and what is allowed.
void validate(const TokenDataSpec& spec);
// The token part of a preset's data section (data.kind shakespeare or addition).
TokenDataSpec token_data_spec(const DatasetSpec& spec);

struct TokenData {
    std::string alphabet;                  // token i is the character alphabet[i]
    std::vector<std::uint8_t> train, test;  // token streams
    // addition: tokens per example (examples lie back to back in the
    // streams) and where the answer starts within one; 0 for free text.
    int example_length = 0;
    int answer_start = 0;
    int answer_digits = 0;

    int vocabulary() const { return static_cast<int>(alphabet.size()); }
    // The characters of tokens, for samples and tests.
    std::string text(const std::vector<std::uint8_t>& tokens) const;
};

// Validates, then builds. The same spec and seed give the same data everywhere.
TokenData make_token_data(const TokenDataSpec& spec, std::uint64_t seed);

// The context a task fixes: an addition example less its last token (each
// window is one example, its targets the example shifted by one); 0 when any
// context will do.
int fixed_context(const TokenDataSpec& spec);

// Windows of `context` tokens and, as targets, the tokens one further on,
// into ids and targets (rows = windows x context, token indices as floats:
// what the model's ids tensor holds).
struct TokenBatch {
    std::vector<float> ids, targets;
};

class WindowSampler {
public:
    // Free text: windows start anywhere in the training stream, drawn from
    // the seed. Examples: every training example once per epoch, in a fresh
    // seeded order each epoch.
    WindowSampler(const TokenData& data, int context, int windows, std::uint64_t seed);
    const TokenBatch& next();
    // Continues where `other` (on the same data) is: a fork's copy.
    void follow(const WindowSampler& other);

private:
    void put(std::size_t window, std::size_t start);

    const TokenData& data_;
    int context_, windows_;
    Rng rng_;
    std::vector<std::uint32_t> order_;  // examples: this epoch's order
    std::size_t cursor_ = 0;
    TokenBatch batch_;
};

// Overwrites every window of a batch (windows of `context` tokens) with a
// stream of random tokens: each window's targets are its ids shifted by one,
// as in text, but no text lies behind them (a corrupted stretch of data).
void garble(std::vector<float>& ids, std::vector<float>& targets, int context, int vocabulary, Rng& rng);

// The test split as at most `max_windows` windows: back to back from the
// start of the text, or the first test examples. Fixed for the run.
TokenBatch test_windows(const TokenData& data, int context, int max_windows);

// addition: the fraction of windows whose every answer digit is the most
// probable token at its position (probs: rows x vocabulary, row-major). As
// each position sees the true digits before it, this is greedy decoding's
// exact-match accuracy: a first wrong digit fails the window either way.
double exact_match(const TokenData& data, const TokenBatch& windows, int context, const std::vector<float>& probs);

}  // namespace plab
