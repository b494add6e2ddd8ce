#include "engine/train/text_sampler.h"

#include <algorithm>
#include <cmath>

namespace plab {

namespace {

std::string text_of(const TokenData& data, std::vector<float>::const_iterator first, std::size_t count) {
    std::vector<std::uint8_t> tokens(count);
    std::transform(first, first + static_cast<std::ptrdiff_t>(count), tokens.begin(),
                   [](float id) { return static_cast<std::uint8_t>(id); });
    return data.text(tokens);
}

}  // namespace

int greedy_token(const float* logits, int count) {
    int best = 0;
    for (int i = 1; i < count; ++i)
        if (logits[i] > logits[best] || (std::isnan(logits[best]) && !std::isnan(logits[i]))) best = i;
    return best;
}

// The prompts come from test_windows, the windows evaluation reads: free
// text's first window is the test text's start, an addition window is one
// test example.
TextSampler::TextSampler(Backend& backend, const TokenData& data, int context, int chars)
    : backend_(backend), data_(data), context_(context), chars_(chars) {
    const bool sums = data.example_length > 0;
    const TokenBatch windows = test_windows(data, context, sums ? kAdditionSamples : 1);
    const auto c = static_cast<std::size_t>(context);
    for (std::size_t start = 0; start + c <= windows.ids.size(); start += c) {
        Prompt p;
        p.window.assign(windows.ids.begin() + static_cast<std::ptrdiff_t>(start),
                        windows.ids.begin() + static_cast<std::ptrdiff_t>(start + c));
        if (sums) {
            const auto answer = static_cast<std::size_t>(data.answer_start);
            p.prompt = text_of(data, p.window.begin(), answer);
            p.expected = text_of(data, p.window.begin() + static_cast<std::ptrdiff_t>(answer),
                                 static_cast<std::size_t>(data.answer_digits));
            // Causal attention: what stands after the position read never
            // reaches its logits; cleared all the same, so no true digit is there.
            std::fill(p.window.begin() + static_cast<std::ptrdiff_t>(answer), p.window.end(), 0.0f);
            p.first_read = data.answer_start - 1;
            p.count = data.answer_digits;
        } else {
            p.prompt = text_of(data, p.window.begin(), c);
            p.first_read = context - 1;
            p.count = chars;
        }
        prompts_.push_back(std::move(p));
    }
    ids_ = backend.allocate({context, 1}, FormatId::fp32);
    targets_ = backend.allocate({context, 1}, FormatId::fp32);
    const std::vector<float> zeros(c, 0.0f);
    backend.upload(zeros.data(), targets_);
    logits_.resize(c * static_cast<std::size_t>(data.vocabulary()));
}

TextSamples TextSampler::prompts(std::int64_t step) const {
    TextSamples out;
    out.step = step;
    for (const Prompt& p : prompts_) out.samples.push_back({p.prompt, p.expected, {}, {}});
    return out;
}

std::vector<std::string> TextSampler::write(TinyGpt& model, const PassFormats& formats) {
    std::vector<std::string> texts;
    for (const Prompt& p : prompts_) texts.push_back(write_one(model, formats, p));
    return texts;
}

std::string TextSampler::write_one(TinyGpt& model, const PassFormats& formats, const Prompt& p) {
    const int vocabulary = data_.vocabulary();
    std::vector<float> window = p.window;
    std::string text;
    int at = p.first_read;
    for (int k = 0; k < p.count; ++k) {
        backend_.upload(window.data(), ids_);
        (void)model.forward(backend_, ids_, targets_, formats);
        backend_.download(model.logits(), logits_.data());
        const int token = greedy_token(logits_.data() + static_cast<std::ptrdiff_t>(at) * vocabulary, vocabulary);
        text += data_.alphabet[static_cast<std::size_t>(token)];
        if (at + 1 < context_) {
            window[static_cast<std::size_t>(++at)] = static_cast<float>(token);
        } else {  // full: slide by one
            std::rotate(window.begin(), window.begin() + 1, window.end());
            window.back() = static_cast<float>(token);
        }
    }
    return text;
}

}  // namespace plab
