#include "engine/data/token_data.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <unordered_set>

#include "engine/common/enum_names.h"
#include "engine/common/error.h"
#include "engine/common/field_check.h"
#include "engine/data/corpus_text.h"

namespace plab {

namespace {
constexpr EnumNames<TokenTask, 2> kTaskNames({{{TokenTask::shakespeare, "shakespeare"}, {TokenTask::addition, "addition"}}});
}  // namespace

std::string_view token_task_name(TokenTask task) { return kTaskNames.name(task); }
std::optional<TokenTask> parse_token_task(std::string_view name) { return kTaskNames.parse(name); }
std::string token_task_choices() { return kTaskNames.choices(); }

void validate(const TokenDataSpec& spec) {
    check_number_field("data.test_fraction", spec.test_fraction, spec.test_fraction > 0 && spec.test_fraction <= 0.5,
                       "> 0 and <= 0.5");
    if (spec.task != TokenTask::addition) return;
    check_int_field("data.digits", spec.digits, 1, 6);
    // At most half of all operand pairs, so that drawing distinct examples stays quick.
    const double pairs = std::pow(10.0, 2 * spec.digits);
    check_int_field("data.samples", spec.samples, 100, static_cast<long long>(std::min(1e6, pairs / 2)));
}

TokenDataSpec token_data_spec(const DatasetSpec& spec) {
    return {spec.kind == DatasetKind::addition ? TokenTask::addition : TokenTask::shakespeare, spec.digits,
            spec.samples, spec.test_fraction};
}

std::string TokenData::text(const std::vector<std::uint8_t>& tokens) const {
    std::string out;
    out.reserve(tokens.size());
    for (std::uint8_t t : tokens) out += alphabet.at(t);
    return out;
}

namespace {

// Tokens of `text` in an alphabet of its distinct characters, sorted.
std::vector<std::uint8_t> tokenise(std::string_view text, std::string& alphabet) {
    std::array<int, 256> index{};
    index.fill(-1);
    for (unsigned char c : text) index[c] = 0;
    alphabet.clear();
    for (int c = 0; c < 256; ++c)
        if (index[static_cast<std::size_t>(c)] == 0) {
            index[static_cast<std::size_t>(c)] = static_cast<int>(alphabet.size());
            alphabet += static_cast<char>(c);
        }
    std::vector<std::uint8_t> tokens(text.size());
    for (std::size_t i = 0; i < text.size(); ++i)
        tokens[i] = static_cast<std::uint8_t>(index[static_cast<unsigned char>(text[i])]);
    return tokens;
}

std::string zero_padded(std::uint64_t value, int digits) {
    std::string s = std::to_string(value);
    return std::string(static_cast<std::size_t>(digits) - s.size(), '0') + s;
}

TokenData shakespeare(const TokenDataSpec& spec) {
    TokenData data;
    std::vector<std::uint8_t> tokens = tokenise(shakespeare_corpus(), data.alphabet);
    const auto test = static_cast<std::size_t>(std::lround(static_cast<double>(tokens.size()) * spec.test_fraction));
    data.test.assign(tokens.end() - static_cast<std::ptrdiff_t>(test), tokens.end());
    tokens.resize(tokens.size() - test);
    data.train = std::move(tokens);
    return data;
}

TokenData addition(const TokenDataSpec& spec, std::uint64_t seed) {
    const int d = spec.digits;
    const auto limit = static_cast<std::uint64_t>(std::llround(std::pow(10.0, d)));
    Rng rng(seed);
    std::unordered_set<std::uint64_t> seen;
    std::string text;
    while (seen.size() < static_cast<std::size_t>(spec.samples)) {
        const std::uint64_t a = rng.below(limit), b = rng.below(limit);
        if (!seen.insert(a * limit + b).second) continue;  // each pair once: no test example is trained on
        std::string sum = zero_padded(a + b, d + 1);
        std::reverse(sum.begin(), sum.end());
        text += zero_padded(a, d) + "+" + zero_padded(b, d) + "=" + sum + "\n";
    }
    TokenData data;
    // Every character the task can write, whatever this draw holds.
    data.alphabet = "\n+0123456789=";
    std::vector<std::uint8_t> tokens(text.size());
    for (std::size_t i = 0; i < text.size(); ++i)
        tokens[i] = static_cast<std::uint8_t>(data.alphabet.find(text[i]));
    data.example_length = 3 * d + 4;
    data.answer_start = 2 * d + 2;
    data.answer_digits = d + 1;
    const long test_examples =
        std::clamp<long>(std::lround(spec.samples * spec.test_fraction), 1, spec.samples - 1);
    const auto split = tokens.size() - static_cast<std::size_t>(test_examples * data.example_length);
    data.test.assign(tokens.begin() + static_cast<std::ptrdiff_t>(split), tokens.end());
    tokens.resize(split);
    data.train = std::move(tokens);
    return data;
}

}  // namespace

TokenData make_token_data(const TokenDataSpec& spec, std::uint64_t seed) {
    validate(spec);
    return spec.task == TokenTask::addition ? addition(spec, seed) : shakespeare(spec);
}

int fixed_context(const TokenDataSpec& spec) {
    return spec.task == TokenTask::addition ? 3 * spec.digits + 3 : 0;
}

WindowSampler::WindowSampler(const TokenData& data, int context, int windows, std::uint64_t seed)
    : data_(data), context_(context), windows_(windows), rng_(seed) {
    if (data.example_length > 0 && context != data.example_length - 1)
        throw Error("model.context: " + std::to_string(context) + " does not fit the task; its windows are " +
                    std::to_string(data.example_length - 1) + " tokens (one example)");
    if (data.train.size() <= static_cast<std::size_t>(context))
        throw Error("model.context: " + std::to_string(context) + " is longer than the training text");
    batch_.ids.resize(static_cast<std::size_t>(windows) * static_cast<std::size_t>(context));
    batch_.targets.resize(batch_.ids.size());
    if (data.example_length > 0) {
        order_.resize(data.train.size() / static_cast<std::size_t>(data.example_length));
        cursor_ = order_.size();  // shuffle before the first batch
    }
}

void WindowSampler::put(std::size_t window, std::size_t start) {
    const auto c = static_cast<std::size_t>(context_);
    for (std::size_t t = 0; t < c; ++t) {
        batch_.ids[window * c + t] = data_.train[start + t];
        batch_.targets[window * c + t] = data_.train[start + t + 1];
    }
}

const TokenBatch& WindowSampler::next() {
    for (std::size_t w = 0; w < static_cast<std::size_t>(windows_); ++w) {
        if (order_.empty()) {
            put(w, rng_.below(data_.train.size() - static_cast<std::size_t>(context_)));
            continue;
        }
        if (cursor_ == order_.size()) {
            std::iota(order_.begin(), order_.end(), 0u);
            for (std::size_t i = order_.size() - 1; i > 0; --i) std::swap(order_[i], order_[rng_.below(i + 1)]);
            cursor_ = 0;
        }
        put(w, static_cast<std::size_t>(order_[cursor_++]) * static_cast<std::size_t>(data_.example_length));
    }
    return batch_;
}

void WindowSampler::follow(const WindowSampler& other) {
    rng_ = other.rng_;
    order_ = other.order_;
    cursor_ = other.cursor_;
}

void garble(std::vector<float>& ids, std::vector<float>& targets, int context, int vocabulary, Rng& rng) {
    const auto c = static_cast<std::size_t>(context);
    const auto v = static_cast<std::uint64_t>(vocabulary);
    for (std::size_t w = 0; w * c < ids.size(); ++w) {
        float next = static_cast<float>(rng.below(v));
        for (std::size_t t = 0; t < c; ++t) {
            ids[w * c + t] = next;
            next = static_cast<float>(rng.below(v));
            targets[w * c + t] = next;
        }
    }
}

TokenBatch test_windows(const TokenData& data, int context, int max_windows) {
    const auto c = static_cast<std::size_t>(context);
    const std::size_t stride = data.example_length > 0 ? static_cast<std::size_t>(data.example_length) : c;
    TokenBatch out;
    for (std::size_t start = 0; start + c < data.test.size() && out.ids.size() < static_cast<std::size_t>(max_windows) * c;
         start += stride)
        for (std::size_t t = 0; t < c; ++t) {
            out.ids.push_back(data.test[start + t]);
            out.targets.push_back(data.test[start + t + 1]);
        }
    return out;
}

double exact_match(const TokenData& data, const TokenBatch& windows, int context, const std::vector<float>& probs) {
    if (data.example_length == 0) throw Error("exact_match: the task has no exact answers");
    const auto c = static_cast<std::size_t>(context);
    const auto vocabulary = static_cast<std::size_t>(data.vocabulary());
    const std::size_t count = windows.ids.size() / c;
    if (count == 0) return 0.0;
    std::size_t right = 0;
    for (std::size_t w = 0; w < count; ++w) {
        bool all = true;
        // Position t predicts token t + 1: the answer's digits from answer_start on.
        for (int k = 0; k < data.answer_digits && all; ++k) {
            const std::size_t row = w * c + static_cast<std::size_t>(data.answer_start - 1 + k);
            const float* p = probs.data() + row * vocabulary;
            const auto best = static_cast<std::size_t>(std::max_element(p, p + vocabulary) - p);
            all = best == static_cast<std::size_t>(windows.targets[row]);
        }
        right += all ? 1 : 0;
    }
    return static_cast<double>(right) / static_cast<double>(count);
}

}  // namespace plab
