#pragma once
// Greedy text of a tiny GPT from fixed prompts (text_samples.h), taken on
// the sample steps of a run (telemetry.sample_every).
//   free text  the prompt is the first `context` characters of the held-out
//              test text; the model writes `chars` more, each the argmax of
//              the last position's logits, the window sliding by one token
//              once it is full (it always is: the prompt fills it).
//   addition   the first kAdditionSamples test problems ("123+456="); the
//              model writes the answer's digits one by one into the rest of
//              the example's window, as exact_match scores them, so a
//              sample is exact exactly when its window counts as right.
// Each side runs in the formats it is evaluated in: the mixed model in its
// pass formats, the twin in FP32.
#include <string>
#include <vector>

#include "engine/amp/pass_formats.h"
#include "engine/backend/backend.h"
#include "engine/data/token_data.h"
#include "engine/model/tiny_gpt.h"
#include "engine/train/text_samples.h"

namespace plab {

inline constexpr int kAdditionSamples = 4;

// The first largest of `count` logits (ties go to the lowest id); NaN never
// wins, so a row of NaN gives 0.
int greedy_token(const float* logits, int count);

class TextSampler {
public:
    // The prompts are fixed here; the backend must outlive the sampler.
    TextSampler(Backend& backend, const TokenData& data, int context, int chars);

    int chars() const { return chars_; }
    // The prompts and expected answers, with no model text yet.
    TextSamples prompts(std::int64_t step) const;
    // The model's greedy continuation of every prompt, in the given formats.
    // Overwrites the model's activations, as an evaluation does.
    std::vector<std::string> write(TinyGpt& model, const PassFormats& formats);

private:
    struct Prompt {
        std::vector<float> window;  // context token ids; positions after `first_read` are not read
        int first_read = 0;         // the position whose logits give the first new token
        int count = 0;              // tokens to write
        std::string prompt, expected;
    };
    std::string write_one(TinyGpt& model, const PassFormats& formats, const Prompt& prompt);

    Backend& backend_;
    const TokenData& data_;
    int context_, chars_;
    std::vector<Prompt> prompts_;
    // One window (context x 1): generation's own batch shape, the third the
    // models keep buffers for (buffer_sets.h). Targets are zeros: the loss
    // the forward computes is not read.
    Tensor ids_, targets_;
    std::vector<float> logits_;
};

}  // namespace plab
