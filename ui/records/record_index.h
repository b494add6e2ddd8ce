#pragma once
// A record's index (docs/telemetry.md, "The index"): a JSON Lines file beside
// the record (`run.jsonl.index`) with one line per record line after the
// header: its type, where it is (first byte, the byte after its newline, its
// line number) and, for a step line, the step's fields without its layers
// plus the largest finite |unscaled gradient| of its layers. A record of a
// large model is almost all layers and histograms, so a reader that has the
// index gets every step's scalars from a file a few hundred times smaller and
// reads layers only for the steps a panel shows.
#include <cstdint>
#include <string>

#include "engine/train/step_record.h"

namespace plab {

inline constexpr int kRecordIndexVersion = 1;

// One index line: where its record line is, and the gradient amax of a step's.
struct IndexEntry {
    std::int64_t at = 0, end = 0;  // the line's first byte, and the byte after its newline
    std::int64_t line = 0;         // the line's number in the record, the header's 1
    float grad_amax = 0;           // step lines only
};

// Where the index of the record at `record` is: beside it, ".index" appended.
std::string record_index_path(const std::string& record);

// The largest finite |unscaled gradient| over a step's layers (their weight
// and activation gradients' amax), as a reader takes it from the layers;
// NaN when the step has no layers.
float unscaled_gradient_amax(const StepRecord& r);

}  // namespace plab
