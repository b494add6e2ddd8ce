#pragma once
// Teaching scenarios: each is a preset in assets/presets/ with a
// guided text (RunConfig::guide) and a check that runs it, with its variants,
// and judges the engine's own records, so that a scenario can never silently
// stop demonstrating its point. `plab scenario NAME` and the workbench's
// Scenario panel run these checks; so do the tests in tests/scenario/.
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/backend/backend.h"

namespace plab {

// One line: what was measured against what is needed, e.g. "fc1 weight
// grads: 41.2% of non-zero true values flush to zero in FP16 (needs >= 30%)".
struct Verdict {
    std::string text;
    bool holds = false;
};

struct ScenarioReport {
    std::string name;  // the preset's
    std::vector<Verdict> verdicts;
    // Figures the verdicts judge, as aligned text lines shown before them
    // (a scenario that computes rather than trains, such as memory-ledger).
    std::vector<std::string> table{};
    bool holds() const;  // every verdict holds (and there is at least one)
};

// Progress of a scenario's runs (0..1) for a long check; may be empty.
using ScenarioProgress = std::function<void(double fraction, const std::string& what)>;
// Runs the scenario's preset (and its variants: --set changes, forks) on `backend` and judges the records.
using ScenarioCheck = ScenarioReport (*)(Backend& backend, const ScenarioProgress& progress);

struct ScenarioEntry {
    std::string_view preset;
    ScenarioCheck check;
};

std::span<const ScenarioEntry> scenario_checks();                   // all, in teaching order
const ScenarioEntry* find_scenario_check(std::string_view preset);  // nullptr if none

}  // namespace plab
