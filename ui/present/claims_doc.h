#pragma once
// The claims table as people read it: docs/claims.md (Markdown, written by
// `plab claims --markdown`) and the counts by verdict both it and `plab
// claims` lead with.
#include <span>
#include <string>

#include "engine/scenario/claims.h"

namespace plab {

// "43 claims: 20 shown true, 14 shown false, 7 need a GPU, 2 out of scope".
std::string claim_counts_text(std::span<const Claim> claims);

// The whole of docs/claims.md.
std::string claims_markdown(std::span<const Claim> claims);

// Text for one Markdown table cell: pipes, emphasis marks and line breaks escaped.
std::string markdown_cell(std::string_view text);

}  // namespace plab
