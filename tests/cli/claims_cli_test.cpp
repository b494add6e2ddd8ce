// `plab claims` as a user runs it: the table, one claim's check, bad input,
// and docs/claims.md kept equal to what --markdown writes.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "cli/cli_run_util.h"
#include "engine/scenario/claims.h"

namespace plab {
namespace {

using cli_test::Result;
using cli_test::run_plab;

TEST(ClaimsCli, DocsClaimsMdIsWhatMarkdownWrites) {
    const Result r = run_plab("claims --markdown");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    const std::string doc = cli_test::slurp(std::filesystem::path(PLAB_SOURCE_DIR) / "docs" / "claims.md");
    EXPECT_EQ(r.out, doc) << "regenerate: build/dev/app/plab claims --markdown > docs/claims.md";
}

TEST(ClaimsCli, ListNamesEveryClaimWithItsVerdictAndRunsNothing) {
    const Result r = run_plab("claims --list");
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const Claim& c : claims()) {
        const std::string head = "- " + std::string(c.id) + "  [" + std::string(claim_verdict_name(c.verdict)) + "]";
        EXPECT_NE(r.out.find(head), std::string::npos) << head;
    }
    EXPECT_EQ(r.out.find("checks hold"), std::string::npos);
}

TEST(ClaimsCli, NamedClaimsRunTheirChecksAndExitZero) {
    const Result r = run_plab("claims fp16-smallest-6.1e-5 speedup-2-3x bf16-narrower");
    ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("\u2713 fp16-smallest-6.1e-5  [shown false]"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("\u00b7 speedup-2-3x  [needs a GPU]"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("2 of 2 checks hold (1 claim needs a GPU or is out of scope: nothing to run)"),
              std::string::npos)
        << r.out;
    EXPECT_EQ(r.out.find("memory-half"), std::string::npos);  // only what was named
}

TEST(ClaimsCli, UnknownClaimExitsTwoAndSaysWhereTheClaimsAre) {
    const std::string all = "(plab claims --list names all " + std::to_string(claims().size()) + ")\n";
    Result r = run_plab("claims no-such-claim");
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(r.err, "plab: claims: unknown claim \"no-such-claim\" " + all);
    r = run_plab("claims memory-hlaf");  // a typo gets the nearest id
    EXPECT_EQ(r.exit_code, 2);
    EXPECT_EQ(r.err, "plab: claims: unknown claim \"memory-hlaf\"; did you mean memory-half? " + all);
}

}  // namespace
}  // namespace plab
