#pragma once
// Text a language model wrote at one step (telemetry.sample_every): greedy
// continuations of fixed prompts by the mixed-precision model and by its FP32
// twin, so a reader sees what the numbers do to the model's output. The
// records' "samples" lines hold these (docs/telemetry.md).
#include <cstdint>
#include <string>
#include <vector>

namespace plab {

struct TextSample {
    std::string prompt;    // the text both sides continue
    std::string expected;  // addition: the true answer's digits; empty for free text
    std::string model;     // the mixed-precision model's greedy continuation
    std::string twin;      // the twin's; empty when the twin is off

    bool operator==(const TextSample&) const = default;
};

struct TextSamples {
    std::int64_t step = 0;
    std::vector<TextSample> samples;  // free text: one; addition: a few test problems

    bool operator==(const TextSamples&) const = default;
};

}  // namespace plab
