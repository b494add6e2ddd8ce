#pragma once
// The seed articles' checkable claims, each with the lab's verdict on it and
// the check that shows it: a teaching scenario (the claim's verdict stands
// when the scenario holds) or a direct check on the formats, the scaler's
// arithmetic or a short run. `plab claims` runs the checks and prints the
// table; docs/claims.md is the same table written out (ui/present/claims_doc.h).
#include <span>
#include <string_view>

#include "engine/scenario/scenario.h"

namespace plab {

enum class ClaimVerdict { shown_true, shown_false, needs_gpu, out_of_scope };
std::string_view claim_verdict_name(ClaimVerdict v);  // "shown true", "shown false", "needs a GPU", "out of scope"

// A direct check: holds when the lab shows what the claim's verdict says
// (for a claim shown false, that the claim is wrong).
using ClaimCheck = Verdict (*)(Backend& backend, const ScenarioProgress& progress);

struct Claim {
    std::string_view id;       // "fp16-smallest-positive": what `plab claims ID` takes
    std::string_view article;  // the seed article's file name
    std::string_view quote;    // the article's words, verbatim
    std::string_view english;  // what they say, in English
    ClaimVerdict verdict;
    // Exactly one of these for a claim shown true or false; neither for one
    // that needs a GPU or is out of scope.
    std::string_view scenario;  // the teaching scenario that shows it
    ClaimCheck check = nullptr;
    std::string_view shown_by;  // where a person sees it: a command, a panel, or why nothing here can
    std::string_view why;       // the check, or the reason, in one or two sentences
};

std::span<const Claim> claims();  // in the articles' order
const Claim* find_claim(std::string_view id);

}  // namespace plab
