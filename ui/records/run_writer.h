#pragma once
// Writers of a run's records: JSON Lines (the documented format, see
// docs/telemetry.md) and CSV (one row per step, the same fields flattened).
// Both are driven by ui/present/step_fields.h, so they list the same fields.
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/train/nan_tracer.h"
#include "engine/train/step_record.h"
#include "engine/train/telemetry.h"
#include "engine/train/trainer.h"

namespace plab {

struct RunHeader {
    std::string config_json;  // the resolved config, one line
    std::vector<std::string> layer_names;
    std::vector<std::string> layer_shapes;  // "2x64"
    std::string backend;
    bool twin = false;
};

class RunWriter {
public:
    virtual ~RunWriter() = default;
    virtual void header(const RunHeader& header) = 0;
    // `micros`: the step's wall time, written only when given (--timing), so
    // that two runs of one seed are byte-identical otherwise.
    virtual void step(const StepRecord& record, std::optional<double> micros = std::nullopt) = 0;
    // `twin`: the twin's statistics and histograms of the same step (StepRecord::twin_view), or null.
    virtual void histograms(std::int64_t step, const std::vector<LayerHistograms>& layers, const TwinView* twin) = 0;
    // A language model's text samples (StepRecord::samples), after their step's line.
    virtual void samples(const TextSamples& samples) = 0;
    virtual void nan(const NanReport& report) = 0;
    // A live edit applied after step `after_step` (0: before the first), so it acts from the next step on.
    virtual void edit(std::int64_t after_step, const std::string& assignment) = 0;
    virtual void flush() = 0;
};

enum class RecordFormat { jsonl, csv };

// The header of a trainer's run: its config as it stands, layers and backend.
RunHeader make_run_header(const Trainer& trainer, const Backend& backend);

// What follows a step's own line: its histograms and its text samples, when it took them.
void write_step_extras(RunWriter& writer, const StepRecord& record);

// The writer keeps a reference to `out`; it buffers and writes in large blocks.
// A JSON Lines writer given `index` writes the record's index there too
// (record_index.h); CSV has none.
std::unique_ptr<RunWriter> make_run_writer(RecordFormat format, std::ostream& out, std::ostream* index = nullptr);

}  // namespace plab
