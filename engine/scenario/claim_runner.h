#pragma once
// Runs the claims' checks: each teaching scenario once however many claims
// it shows, each direct check once per claim.
#include <optional>
#include <span>
#include <vector>

#include "engine/scenario/claims.h"

namespace plab {

struct ClaimOutcome {
    const Claim* claim = nullptr;
    std::optional<Verdict> verdict;  // none: nothing runs here (needs a GPU, out of scope)
    std::vector<Verdict> details;    // the scenario's own verdicts, for a claim a scenario shows
};

std::vector<ClaimOutcome> check_claims(Backend& backend, std::span<const Claim* const> which,
                                       const ScenarioProgress& progress);

// Every outcome that ran holds.
bool all_hold(const std::vector<ClaimOutcome>& outcomes);

}  // namespace plab
