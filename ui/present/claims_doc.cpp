#include "ui/present/claims_doc.h"

#include <algorithm>

namespace plab {

namespace {

constexpr ClaimVerdict kVerdicts[] = {ClaimVerdict::shown_true, ClaimVerdict::shown_false, ClaimVerdict::needs_gpu,
                                      ClaimVerdict::out_of_scope};

// "20 shown true", "7 need a GPU", "1 needs a GPU".
std::string count_text(long n, ClaimVerdict v) {
    std::string name(claim_verdict_name(v));
    if (v == ClaimVerdict::needs_gpu && n != 1) name = "need a GPU";
    return std::to_string(n) + " " + name;
}

// Where the check lives: the scenario, a direct check, or nothing.
std::string check_source(const Claim& c) {
    if (!c.scenario.empty()) return "scenario `" + std::string(c.scenario) + "`";
    if (c.check != nullptr) return "direct check";
    return "no check";
}

}  // namespace

std::string claim_counts_text(std::span<const Claim> claims) {
    std::string text = std::to_string(claims.size()) + " claims";
    const char* separator = ": ";
    for (ClaimVerdict v : kVerdicts) {
        const long n = std::count_if(claims.begin(), claims.end(), [v](const Claim& c) { return c.verdict == v; });
        text += separator + count_text(n, v);
        separator = ", ";
    }
    return text;
}

std::string markdown_cell(std::string_view text) {
    std::string cell;
    for (char ch : text) {
        if (ch == '|' || ch == '*' || ch == '_' || ch == '`') cell += '\\';
        cell += ch == '\n' ? ' ' : ch;
    }
    return cell;
}

std::string claims_markdown(std::span<const Claim> claims) {
    std::string md =
        "# The seed articles' claims, checked\n\n"
        "<!-- Written by `plab claims --markdown > docs/claims.md` from engine/scenario/claim_table.cpp; "
        "a test fails when the two differ. -->\n\n"
        "Each checkable claim of the seed articles (the Chinese articles DESIGN.md summarises), quoted, "
        "translated, and judged by the lab: **shown true** or **shown false** by a teaching scenario or a "
        "direct check that `plab claims` runs (exit 1 if one does not hold), **needs a GPU** where only a "
        "device can measure it, **out of scope** where the lab has nothing to say. `plab claims ID` runs "
        "one claim's check; `plab claims --list` prints this table without running anything.\n\n" +
        claim_counts_text(claims) +
        ".\n\n"
        "| # | Claim | Article | Verdict | Shown by | Check |\n"
        "|---|---|---|---|---|---|\n";
    int n = 0;
    for (const Claim& c : claims) {
        md += "| " + std::to_string(++n) + " | " + markdown_cell(c.quote) + "<br>*" + markdown_cell(c.english) + "*<br>`" +
              std::string(c.id) + "` | " + markdown_cell(c.article) + " | **" + std::string(claim_verdict_name(c.verdict)) +
              "** | " + markdown_cell(c.shown_by) + " | " + check_source(c) + ": " + markdown_cell(c.why) + " |\n";
    }
    return md;
}

}  // namespace plab
