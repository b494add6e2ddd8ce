#pragma once
// View model of the Scenario panel: a preset's guided text ("Look at: ...",
// "Try: ...", "What happens: ..."), split into its parts, and the changes
// its "Try" part names as `--set field=value`, which the panel offers to run
// side by side with the preset as shipped (a fork from step 0).
#include <string>
#include <vector>

#include "engine/train/run_config.h"

namespace plab {

struct GuidePart {
    std::string heading;  // "Look at", "Try", "What happens"; "" for a paragraph without one
    std::string text;     // the paragraph after the heading, trimmed
};

struct ScenarioView {
    std::string title;        // the preset's name
    std::string description;  // its one line
    std::vector<GuidePart> parts;  // empty when the preset has no guide
    std::vector<std::string> try_changes;  // "scaler.kind=dynamic", in order of appearance, no repeats
    std::string no_guide;  // what to say instead when there is no guide; "" otherwise
};

ScenarioView make_scenario_view(const RunConfig& config);

// Paragraphs (separated by blank lines) of a guide, each split at a leading
// "Heading:" when the heading is one of the three a guide uses.
std::vector<GuidePart> split_guide(const std::string& guide);

// The `--set a.b=c` assignments in a text, in order, without repeats.
std::vector<std::string> set_assignments(const std::string& text);

}  // namespace plab
