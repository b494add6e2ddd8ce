#pragma once
// A run record read back: the JSON Lines that `plab run`, the workbench's
// File > Export run and plab_probe (a PyTorch run, docs/probe.md) write
// (docs/telemetry.md). Every problem names the line and the field; a last
// line cut off mid-way (a killed run) is skipped with a warning and the rest
// is kept.
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/train/step_record.h"

namespace plab {

// A "nan" line: the first non-finite value, as the lab's NaN tracer or the
// probe's hooks named it. Phases and ops are the writer's words
// (forward / loss / backward / unscale / update from the lab; forward /
// backward / optimizer from the probe).
struct RecordedNan {
    std::int64_t step = 0;
    std::string phase, layer, op, tensor, format, diagnosis;
    std::int64_t nans = 0, infs = 0;
    float scale = 1;
};

// Where a line of a record file is: its first byte and its line number.
struct RecordLine {
    std::int64_t offset = 0;
    std::int64_t line = 0;
};

struct RecordedRun {
    int version = 0;
    std::string backend;      // "CPU (exact emulation)", "PyTorch 2.4.0 (cuda)"
    std::string name;         // config.name
    std::string config_json;  // the header's config, as written
    std::string source;       // "" for the lab's own runs, else "plab_probe 0.1.0, torch 2.4.0, rank 0 of 2"
    bool twin = false;
    std::vector<std::string> layer_names, layer_shapes;
    std::vector<StepRecord> steps;  // layers filled when the read asked for them
    // Per step: the largest finite |unscaled gradient| the record measured
    // (weight gradients, and activation gradients where recorded); NaN for a
    // step without layer statistics.
    std::vector<float> grad_amax;
    std::int64_t histogram_lines = 0;
    // With RunReadOptions::line_offsets: where each step line starts in the
    // file (by index into `steps`), and each hist line with the step it
    // belongs to (the step line before it), to read a step's layers and
    // histograms again when asked (read_step_again).
    std::vector<RecordLine> step_offsets;
    std::vector<std::pair<std::int64_t, RecordLine>> histogram_offsets;  // (step, where)
    // With RunReadOptions::gradient_histograms: per "hist" line, its step and
    // the sum over layers of the unscaled weight gradients' histograms.
    std::vector<std::pair<std::int64_t, Log2Histogram>> gradient_histograms;
    std::vector<RecordedNan> nans;
    // Every "samples" line (a language model's text), in the record's order;
    // small, so all are kept however long the record.
    std::vector<std::shared_ptr<const TextSamples>> samples;
    std::vector<std::string> warnings;
};

struct RunReadOptions {
    bool layers = true;  // per-layer statistics of every step (the largest part of a record)
    bool gradient_histograms = false;  // RecordedRun::gradient_histograms
    // Every layer's histograms of a "hist" line, on its step's StepRecord::histograms.
    bool layer_histograms = false;
    // Layers and histograms are kept for the newest `layers_kept` steps only
    // (older steps keep their scalars): a long record of a large model then
    // fits in memory, as a live run's RunLog keeps only its recent records.
    std::size_t layers_kept = static_cast<std::size_t>(-1);
    // read_run_file reads every step's fields from the record's index when
    // one beside it describes it (record_index.h), and the record only for
    // the lines the read needs whole.
    bool use_index = true;
    bool line_offsets = false;  // RecordedRun::step_offsets and histogram_offsets (files only)
    // Every line read with nlohmann-json, none with simdjson (fast_lines.h):
    // the reference the fast way is tested against.
    bool careful_only = false;
    // read_run_file reads a file in ranges on threads: up to `threads` (0:
    // the machine's cores), one per `bytes_per_thread` of the file.
    unsigned threads = 0;
    std::uint64_t bytes_per_thread = 32u << 20;
    // Called now and then with the bytes read so far.
    std::function<void(std::uint64_t bytes)> progress;
};

// Reads a record; `label` names it in messages ("run.jsonl"). Throws
// plab::Error ("run.jsonl line 12: scale_after: \"x\" is not a number").
RecordedRun read_run(std::istream& in, const std::string& label, const RunReadOptions& options = {});
// The same from a file, through its index where it has one (the result is
// the same); a file that cannot be opened is an Error naming it.
RecordedRun read_run_file(const std::string& path, const RunReadOptions& options = {});

// Step `index` of a run read from `path` with line_offsets, read again with
// its layers, and with the histograms of the hist line at `histogram`
// (an index into histogram_offsets) when that is not -1. plab::Error names
// the line's problem, or a file that no longer holds it.
StepRecord read_step_again(const std::string& path, const RecordedRun& run, std::size_t index,
                           std::ptrdiff_t histogram = -1);

}  // namespace plab
