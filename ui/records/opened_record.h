#pragma once
// A run record opened in a workbench (--open, File > Open run...): read once,
// then shown as a SessionSnapshot, so every panel draws it as it draws a run
// training here; and shown again with a loss-scaler what-if replayed on the
// record's gradients as the snapshot's fork.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/amp/scaler_replay.h"
#include "engine/train/run_config.h"
#include "engine/train/session.h"
#include "ui/records/run_reader.h"

namespace plab {

struct OpenedRecord {
    std::string file;
    RecordedRun run;
    // The record's config as the lab reads it: a lab record's whole config;
    // a PyTorch record's scaler and telemetry over the lab's defaults.
    RunConfig config;
    // The recorded run as the panels see it, built once: it holds the layers
    // and histograms of the newest steps (RecordedRun::steps keeps every
    // step's scalars only).
    RunView recorded;
    FormatId grad_format = FormatId::fp16;       // what the what-if's overflow threshold is taken from
    std::vector<RecordedScaleStep> scale_steps;  // what the what-if replays on
    std::string no_what_if;                      // why there is none ("" when there is)
};

// Steps whose layers (and histograms) an opened record keeps in memory, the
// newest ones: as many as a live run's RunLog keeps.
inline constexpr std::size_t kOpenedLayerSteps = 1024;

// Reads `file` (plab::Error naming the line and field of a bad record);
// `progress` is called now and then with the bytes read.
OpenedRecord open_record(const std::string& file, std::function<void(std::uint64_t bytes)> progress = {});

// The record's latest step at or before `at` that took histograms, read again
// from the file with its layers: for a step older than the newest ones the
// snapshot holds (a jump from an old event). Null when no step before it took
// any; plab::Error when the file no longer holds what it held.
std::shared_ptr<const StepRecord> histograms_at(const OpenedRecord& record, std::int64_t at);

// The snapshot panels draw. With `what_if` (scaler edits such as
// "scaler.init_scale=1024", applied over the record's own settings), the fork
// is the record's loss scaler replayed under them from step 0: its scales and
// verdicts are predictions, its losses NaN (a replay knows no loss). Throws
// plab::Error on an edit that is not a valid scaler setting, or a what-if on
// a record that has none (OpenedRecord::no_what_if).
std::shared_ptr<const SessionSnapshot> record_snapshot(const OpenedRecord& record,
                                                       const std::vector<std::string>& what_if = {});

// A command line's --what-if checked as plab replay checks its --set:
// record_snapshot's errors, and plab::Error for a scaler setting that the
// replayed kind does not read (it would draw the recorded trajectory again).
// The panels call record_snapshot alone: a person trying kinds may leave such
// a setting behind, and the fork then shows what the kind they chose does.
void require_read_what_if(const OpenedRecord& record, const std::vector<std::string>& what_if);

}  // namespace plab
