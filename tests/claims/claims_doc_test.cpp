// docs/claims.md as the presenter writes it: one escaped row per claim, the
// counts by verdict, and cells that cannot break the table.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "ui/present/claims_doc.h"

namespace plab {
namespace {

TEST(ClaimsDoc, CellsEscapeWhatWouldBreakATableRow) {
    EXPECT_EQ(markdown_cell("| a | b |"), "\\| a \\| b \\|");
    EXPECT_EQ(markdown_cell("**Loss Scaling**"), "\\*\\*Loss Scaling\\*\\*");
    EXPECT_EQ(markdown_cell("unscale_(x)\nnext"), "unscale\\_(x) next");
    EXPECT_EQ(markdown_cell("`code`"), "\\`code\\`");
}

TEST(ClaimsDoc, CountsAddUpAndReadAsWords) {
    const Claim a{"a", "x.txt", "q", "e", ClaimVerdict::shown_true, {}, nullptr, "s", "w"};
    const Claim b{"b", "x.txt", "q", "e", ClaimVerdict::needs_gpu, {}, nullptr, "s", "w"};
    const Claim c{"c", "x.txt", "q", "e", ClaimVerdict::needs_gpu, {}, nullptr, "s", "w"};
    const Claim two[] = {a, b};
    const Claim three[] = {a, b, c};
    EXPECT_EQ(claim_counts_text(two), "2 claims: 1 shown true, 0 shown false, 1 needs a GPU, 0 out of scope");
    EXPECT_EQ(claim_counts_text(three), "3 claims: 1 shown true, 0 shown false, 2 need a GPU, 0 out of scope");
}

TEST(ClaimsDoc, OneRowPerClaimWithEveryColumn) {
    const std::string md = claims_markdown(claims());
    const auto rows = std::count(md.begin(), md.end(), '\n');
    std::size_t table_rows = 0;
    for (std::size_t at = md.find("\n| "); at != std::string::npos; at = md.find("\n| ", at + 1)) ++table_rows;
    EXPECT_EQ(table_rows, claims().size() + 1);  // and the header
    EXPECT_GT(rows, 0);
    for (const Claim& c : claims()) {
        SCOPED_TRACE(std::string(c.id));
        const std::size_t at = md.find("`" + std::string(c.id) + "`");
        ASSERT_NE(at, std::string::npos);
        const std::size_t end = md.find('\n', at);
        const std::string rest = md.substr(at, end - at);
        EXPECT_NE(rest.find(std::string(claim_verdict_name(c.verdict))), std::string::npos);
        // Six columns: seven unescaped pipes on the row.
        const std::size_t start = md.rfind('\n', at) + 1;
        const std::string row = md.substr(start, end - start);
        int pipes = 0;
        for (std::size_t i = 0; i < row.size(); ++i) pipes += row[i] == '|' && (i == 0 || row[i - 1] != '\\');
        EXPECT_EQ(pipes, 7) << row;
    }
    EXPECT_NE(md.find(claim_counts_text(claims())), std::string::npos);
}

}  // namespace
}  // namespace plab
