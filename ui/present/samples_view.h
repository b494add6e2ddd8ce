#pragma once
// View model of the samples panel: the text a language model wrote on its
// sample steps (telemetry.sample_every, engine/train/text_sampler.h), the
// mixed-precision model beside its FP32 twin, split where the two first
// part; for addition, each test problem with both answers and whether each
// is exact. Newest step first, so a chooser opens on the latest.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/train/session.h"

namespace plab {

// A sample's text as shown: `same` up to where it first departs from the
// other side's text, `departed` from there on (empty when the two agree).
struct SplitText {
    std::string same, departed;
};

struct SampleRow {
    std::string prompt;    // shown text (newlines as "↵")
    std::string expected;  // addition: the true answer; "" for free text
    SplitText model, twin;  // twin: empty without a twin
    // Characters both sides share before they part: the first index where
    // they differ, or the whole text's length when they agree.
    int agreed = 0;
    bool model_exact = false, twin_exact = false;  // addition only
};

struct SampleStep {
    std::int64_t step = 0;
    std::string label;    // "step 200"
    std::string summary;  // "departs at character 17 of 80", "identical", "model 3/4 exact, twin 4/4"
    std::vector<SampleRow> rows;
};

struct SamplesView {
    bool answers = false;  // addition: rows are problems with answers to check
    bool twin = false;     // the run has a twin to compare with
    std::string title;     // what the rows are: "Greedy text after the test text's first 32 characters"; "" for an MLP
    std::string note;      // why no steps are shown (no samples yet, or none to come); "" otherwise
    std::vector<SampleStep> steps;  // newest first
};

// The first index at which a and b differ; the shorter's length when one
// begins the other; -1 when they are equal.
int first_difference(std::string_view a, std::string_view b);
// Text for one line of a panel: each newline becomes "↵".
std::string shown_text(std::string_view text);

// From the main run's recent records (those that carry StepRecord::samples);
// a PyTorch record's note says why it has none.
SamplesView make_samples_view(const SessionSnapshot& snapshot);

// The index in view.steps of the step a reader picked (`picked`; -1 follows
// the newest): its own while the view still holds it, else 0, the newest;
// -1 when there are no steps.
int picked_step_index(const SamplesView& view, std::int64_t picked);

// Where text in a monospace font breaks into lines of `columns` characters
// (UTF-8 code points, at least one a line), cut anywhere: the byte offsets
// the lines begin at, 0 first. The model's text and its twin's cut alike
// keep each character above its counterpart.
std::vector<std::size_t> line_starts(std::string_view text, int columns);

}  // namespace plab
