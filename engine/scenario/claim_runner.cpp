#include "engine/scenario/claim_runner.h"

#include <algorithm>
#include <map>
#include <string>
#include <utility>

namespace plab {

namespace {

// The verdict a scenario gives a claim: the scenario holds, and how many of its checks do.
Verdict scenario_verdict(const ScenarioReport& report) {
    const auto held = std::count_if(report.verdicts.begin(), report.verdicts.end(), [](const Verdict& v) { return v.holds; });
    return {"plab scenario " + report.name + ": " + std::to_string(held) + " of " +
                std::to_string(report.verdicts.size()) + " checks hold",
            report.holds()};
}

// The progress of one of `count` equal parts, as the whole run's.
ScenarioProgress part_of(const ScenarioProgress& progress, std::size_t index, std::size_t count) {
    if (!progress) return {};
    return [&progress, index, count](double fraction, const std::string& what) {
        progress((static_cast<double>(index) + fraction) / static_cast<double>(count), what);
    };
}

}  // namespace

std::vector<ClaimOutcome> check_claims(Backend& backend, std::span<const Claim* const> which,
                                       const ScenarioProgress& progress) {
    std::vector<ClaimOutcome> outcomes;
    std::map<std::string_view, ScenarioReport> reports;  // by scenario: each runs once
    for (std::size_t i = 0; i < which.size(); ++i) {
        const Claim& claim = *which[i];
        const ScenarioProgress part = part_of(progress, i, which.size());
        ClaimOutcome outcome{&claim, std::nullopt, {}};
        if (!claim.scenario.empty()) {
            auto found = reports.find(claim.scenario);
            if (found == reports.end()) {
                const ScenarioEntry* entry = find_scenario_check(claim.scenario);
                ScenarioReport report = entry != nullptr ? entry->check(backend, part)
                                                         : ScenarioReport{std::string(claim.scenario), {}};
                found = reports.emplace(claim.scenario, std::move(report)).first;
            }
            outcome.verdict = scenario_verdict(found->second);
            outcome.details = found->second.verdicts;
        } else if (claim.check != nullptr) {
            outcome.verdict = claim.check(backend, part);
        }
        outcomes.push_back(std::move(outcome));
    }
    if (progress) progress(1.0, "done");
    return outcomes;
}

bool all_hold(const std::vector<ClaimOutcome>& outcomes) {
    return std::all_of(outcomes.begin(), outcomes.end(),
                       [](const ClaimOutcome& o) { return !o.verdict || o.verdict->holds; });
}

}  // namespace plab
