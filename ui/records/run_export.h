#pragma once
// Writes every record of a run that a Session trained, although the session
// itself keeps only the recent ones (its memory stays flat): the run is
// replayed from its first config with its live edits at their steps, which
// the engine's determinism makes exact. A JSON Lines export also lists the
// edits (`{"type":"edit",...}` lines) where they applied.
#include <cstdint>
#include <functional>
#include <string>

#include "engine/train/run_config.h"
#include "engine/train/run_log.h"
#include "ui/records/run_writer.h"

namespace plab {

struct RunExport {
    RunConfig initial;  // the config the run started from (before any edit)
    const EditList* edits = nullptr;  // the run's live edits with their steps (may be null: none)
    std::int64_t steps = 0;           // how many steps to write (the run's steps_done)
    RecordFormat format = RecordFormat::jsonl;
    std::string path;
};

// Called after each step with the steps written so far; returning false
// cancels (the partial file is removed).
using ExportProgress = std::function<bool(std::int64_t done)>;

// Writes `path` through `path.part`, renamed once complete. Returns the last
// record written (to compare with what the session shows). Throws plab::Error
// naming the path when it cannot be written, or "export cancelled".
StepRecord export_run(const RunExport& e, const ExportProgress& progress);

}  // namespace plab
