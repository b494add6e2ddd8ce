// plab claims: the seed articles' claims, each with the lab's verdict, and
// the checks that show them.
#include <CLI/CLI.hpp>
#include <unistd.h>

#include <iostream>
#include <memory>
#include <optional>
#include <vector>

#include "engine/backend/backend_choice.h"
#include "engine/common/error.h"
#include "engine/common/nearest_name.h"
#include "engine/scenario/claim_runner.h"
#include "ui/cli/commands.h"
#include "ui/cli/progress_line.h"
#include "ui/present/claims_doc.h"

namespace plab {

namespace {

// An unknown id: the nearest one when it looks like a typo, and where all are listed.
[[noreturn]] void reject_claim(const std::string& id) {
    std::vector<std::string> ids;
    for (const Claim& c : claims()) ids.emplace_back(c.id);
    const std::optional<std::string> nearest = nearest_name(id, ids);
    throw Error("claims: unknown claim \"" + id + "\"" + (nearest ? "; did you mean " + *nearest + "?" : "") +
                " (plab claims --list names all " + std::to_string(ids.size()) + ")");
}

// The claims the ids name, in the table's order; all of them for none.
std::vector<const Claim*> chosen_claims(const std::vector<std::string>& ids) {
    std::vector<const Claim*> chosen;
    for (const std::string& id : ids)
        if (find_claim(id) == nullptr) reject_claim(id);
    for (const Claim& c : claims()) {
        const bool named = ids.empty() || std::find(ids.begin(), ids.end(), c.id) != ids.end();
        if (named) chosen.push_back(&c);
    }
    return chosen;
}

// A claim's head line and its quote, translation and evidence, indented.
void write_claim(std::ostream& out, std::string_view mark, const Claim& c) {
    out << mark << ' ' << c.id << "  [" << claim_verdict_name(c.verdict) << "]  " << c.article << '\n'
        << "    " << c.quote << '\n'
        << "    \"" << c.english << "\"\n"
        << "    shown by: " << c.shown_by << '\n'
        << "    " << c.why << '\n';
}

void write_list(std::ostream& out) {
    out << claim_counts_text(claims()) << "\n\n";
    for (const Claim& c : claims()) {
        write_claim(out, "-", c);
        out << '\n';
    }
    out << "plab claims runs every check; plab claims ID runs one; --markdown writes docs/claims.md.\n";
}

struct Tally {
    std::size_t ran = 0, held = 0, nothing = 0;
};

Tally write_outcomes(std::ostream& out, const std::vector<ClaimOutcome>& outcomes) {
    Tally tally;
    for (const ClaimOutcome& o : outcomes) {
        const char* mark = !o.verdict ? "\u00b7" : o.verdict->holds ? "\u2713" : "\u2717";
        write_claim(out, mark, *o.claim);
        if (o.verdict) out << "    " << (o.verdict->holds ? "" : "DOES NOT HOLD: ") << o.verdict->text << '\n';
        for (const Verdict& v : o.details) out << "      " << (v.holds ? "\u2713 " : "\u2717 ") << v.text << '\n';
        out << '\n';
        tally.nothing += !o.verdict;
        tally.ran += o.verdict.has_value();
        tally.held += o.verdict && o.verdict->holds;
    }
    return tally;
}

}  // namespace

int run_claims(const ClaimsOptions& o, std::ostream& out, std::ostream& log, bool progress) {
    if (o.markdown) {
        out << claims_markdown(claims());
        return 0;
    }
    if (o.list) {
        write_list(out);
        return 0;
    }
    const std::vector<const Claim*> chosen = chosen_claims(o.ids);
    const std::unique_ptr<Backend> backend = make_run_backend(o.backend);
    ProgressLine line(log, progress);
    const std::vector<ClaimOutcome> outcomes =
        check_claims(*backend, chosen, [&line](double fraction, const std::string& what) { line.update(fraction, what); });
    line.clear();
    const Tally tally = write_outcomes(out, outcomes);
    out << tally.held << " of " << tally.ran << " checks hold";
    if (tally.nothing > 0)
        out << " (" << tally.nothing
            << (tally.nothing == 1 ? " claim needs a GPU or is out of scope" : " claims need a GPU or are out of scope")
            << ": nothing to run)";
    out << ", on " << backend->name() << '\n';
    return all_hold(outcomes) ? 0 : 1;
}

void add_claims_command(CLI::App& app) {
    auto options = std::make_shared<ClaimsOptions>();
    CLI::App* cmd = app.add_subcommand("claims", "Check the seed articles' claims about mixed precision, one by one");
    cmd->description(
        "Check the seed articles' claims about mixed precision, one by one.\n"
        "Each claim is quoted (Chinese, as the article has it) and translated, with the lab's verdict:\n"
        "shown true or shown false by a teaching scenario or a direct check, needs a GPU, or out of\n"
        "scope. With no ID every check runs (the scenarios take a few minutes on the CPU); each line\n"
        "is marked \u2713 (the check shows the verdict), \u2717 (it does not) or \u00b7 (nothing to run).\n\n"
        "Examples:\n"
        "  plab claims --list                        the table, nothing run\n"
        "  plab claims fp16-smallest-6.1e-5          one claim's check\n"
        "  plab claims 67-percent-underflow memory-half\n"
        "  plab claims                               every check\n"
        "  plab claims --markdown > docs/claims.md   the table as the docs keep it\n"
        "Exit codes: 0 every check that ran holds; 1 one does not; 2 bad input (e.g. an unknown claim).");
    cmd->add_option("ids", options->ids, "Claims to check (see --list); none: all");
    cmd->add_flag("--list", options->list, "Print the claims and verdicts without running a check");
    cmd->add_flag("--markdown", options->markdown, "Print the table as Markdown (docs/claims.md) without running a check");
    cmd->add_option("--backend", options->backend, "Where scenario checks train: cpu|cuda|auto")->default_val("cpu");
    cmd->callback([options] {
        const int code = run_claims(*options, std::cout, std::cerr, isatty(STDERR_FILENO) != 0);
        if (code != 0) throw CommandExit(code);
    });
}

}  // namespace plab
