#pragma once
// View model of the events panel: the run's scaler events, live edits and
// non-finite losses as table rows, newest first, each with the step a click
// jumps to. Per-step detail comes from the recent full records; events older
// than that window come from the decimated series, one row per series point
// and kind ("steps 1024-1087: 3 overflows"), so that no event ever drops out
// of the table, and none is listed twice.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/train/run_log.h"

namespace plab {

enum class EventKind { overflow, backoff, growth, edit, nonfinite };
inline constexpr std::size_t kEventKindCount = 5;
inline constexpr std::array<EventKind, kEventKindCount> kEventKindList = {
    EventKind::overflow, EventKind::backoff, EventKind::growth, EventKind::edit, EventKind::nonfinite};

// A set of kinds, one bit per kind.
using EventKindMask = unsigned;
constexpr EventKindMask event_bit(EventKind k) { return 1u << static_cast<unsigned>(k); }
inline constexpr EventKindMask kAllEventKinds = (1u << kEventKindCount) - 1;

// "overflow", "backoff", "growth", "edit", "non-finite loss".
std::string_view event_kind_name(EventKind k);

struct EventRow {
    EventKind kind = EventKind::overflow;
    std::int64_t step = 0;       // where "jump to step" goes: the step, or the first of a range
    std::int64_t last_step = 0;  // == step unless the row sums a range of older steps
    std::string step_text;       // "412", "1024-1087"
    std::string event;           // "overflow", "3 overflows"
    std::string detail;          // "scale 2^17 -> 2^16", "first non-finite gradient in fc2 at scale 2^17, step skipped"
    std::int64_t count = 1;      // events of this kind the row stands for
    // From the decimated series: counts only, the steps' full records have
    // left the recent window.
    bool from_series = false;
};

struct EventTable {
    std::vector<EventRow> rows;  // newest first, at most max_rows, only the kinds asked for
    std::size_t matching = 0;    // rows of those kinds before the cap
    // Per kind (index: EventKind) over the whole run, whatever the filter:
    // log.totals for the scaler events, every edit; non-finite losses are
    // counted over the recent records only (the series keeps no such count).
    std::array<std::int64_t, kEventKindCount> counts{};
    std::int64_t skipped = 0;               // log.totals.skipped
    std::int64_t first_nonfinite_step = -1;  // log.totals.first_nonfinite_step
    std::string summary;  // "5 overflows (5 skipped) · 4 backoffs · 1 growth · 2 edits · first non-finite step 3"
};

// `layer_names` name the entries of StepRecord::layers (first_nonfinite_layer
// indexes them); `kinds` filters the rows, not the counts. Rows within one
// step run newest first too: an edit made after the step, then its growth or
// backoff, its overflow, its non-finite loss.
EventTable make_event_table(const RunLogView& log, const std::vector<std::string>& layer_names, std::size_t max_rows,
                            EventKindMask kinds = kAllEventKinds);

}  // namespace plab
