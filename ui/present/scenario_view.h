#pragma once
// View model of the Scenario panel: a preset's guided text ("Look at: ...",
// "Try: ...", "What happens: ..."), split into its parts, and the changes
// its "Try" part names (`field=value`, several joined by "with" or "and"),
// which the panel offers to run side by side with the preset as shipped (a
// fork from step 0).
#include <optional>
#include <string>
#include <vector>

#include "engine/train/run_config.h"
#include "ui/present/histogram_view.h"

namespace plab {

struct GuidePart {
    std::string heading;  // "Look at", "Try", "What happens"; "" for a paragraph without one
    std::string text;     // the paragraph after the heading, trimmed
};

struct ScenarioView {
    std::string title;        // the preset's name
    std::string description;  // its one line
    std::vector<GuidePart> parts;  // empty when the preset has no guide
    // One entry per change to try, each one or more assignments ("scaler.kind=dynamic"), in order, no repeats.
    std::vector<std::vector<std::string>> try_changes;
    std::string no_guide;  // what to say instead when there is no guide; "" otherwise
};

ScenarioView make_scenario_view(const RunConfig& config);

// Paragraphs (separated by blank lines) of a guide, each split at a leading
// "Heading:" when the heading is one of the three a guide uses.
std::vector<GuidePart> split_guide(const std::string& guide);

// The changes a text names: assignments `path=value` whose path is a preset
// setting (setting_paths(); a layer override's path goes one level deeper),
// with an optional leading `--set `; assignments joined only by " with " or
// " and " form one change. In order, without repeats. A value is a word, or
// a JSON list in brackets.
std::vector<std::vector<std::string>> named_changes(const std::string& text);

// The panels (their ids: "scale", "loss", "histograms", ...) a guide's
// "Look at" part names, in the order it names them, without repeats.
std::vector<std::string> looked_at_panels(const std::string& guide);

// What a guide's "Look at" part asks of the histogram panel: the tensor it
// names ("activation gradients", "weight gradients", "activations"), the
// first of `layers` it names as a word ("fc1", not the "fc1" of "fc10"),
// each absent when it names none, and the formats whose band it names ("the
// E5M2 band", "the BF16 and FP16 bands": a format before "band" in one sentence).
struct HistogramFocus {
    std::optional<HistTensor> tensor;
    std::optional<std::string> layer;
    std::vector<FormatId> bands;
    bool operator==(const HistogramFocus&) const = default;
};
HistogramFocus looked_at_histogram(const std::string& guide, const std::vector<std::string>& layers);

}  // namespace plab
