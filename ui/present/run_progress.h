#pragma once
// Where a run stands, for the GUIs' status lines: the step against the
// preset's planned steps. A session keeps training past them when asked
// (a --steps beyond the preset's, a step or play after the end), so past the
// plan the text says how far past instead of a fraction above one.
#include <cstdint>
#include <string>

namespace plab {

// "step 120 / 2000"; past the plan, "step 100000 (2000 planned)"; with no
// plan (planned <= 0), "step 120".
std::string run_progress_text(std::int64_t step, std::int64_t planned);

}  // namespace plab
