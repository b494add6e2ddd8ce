#pragma once
// The bulk of a run record, its step and hist lines, read with simdjson's
// DOM parser (an order of magnitude faster than nlohmann-json's). Each call
// returns false on anything it does not expect: the reader then reads that
// line the careful way (run_reader.cpp), which accepts it or names the line
// and field at fault. So where a call returns true, it has read exactly what
// the careful way reads (a test holds the two to that on real records).
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/train/step_record.h"
#include "ui/records/record_index.h"

namespace plab {

struct RecordedRun;

// What a hist line holds: every layer's histograms, in the header's layer
// order, and, in a run with a twin, the twin's statistics and histograms of
// the same step (each layer's "twin" object).
struct HistogramLine {
    std::int64_t step = 0;
    std::vector<LayerHistograms> layers;
    std::optional<TwinView> twin;

    // Onto its step's record: StepRecord::histograms and twin_view.
    void attach_to(StepRecord& r) &&;
};

class FastLines {
public:
    FastLines();
    ~FastLines();
    FastLines(const FastLines&) = delete;
    FastLines& operator=(const FastLines&) = delete;

    // Parses one line (its buffer may grow by the parser's padding); false
    // when it is not a JSON object. The calls below read the line parsed last.
    bool parse(std::string& text);
    // Its "type"; empty when it has none or it is not a string.
    std::string_view type() const;

    // A step line: its scalars, `with_layers` its layers (as many as the
    // header names, each under its own name), and the largest finite
    // |unscaled gradient| of its layers (NaN without layers). `previous` is
    // the step before it (0 for the first).
    bool step(const RecordedRun& run, bool with_layers, std::int64_t previous, StepRecord& r, float& grad_amax) const;
    // An index line's own fields (record_index.h); a step line's are read by step().
    bool index_entry(bool step, IndexEntry& e) const;
    // A hist line: its step and the unscaled weight-gradient histograms summed over its layers.
    bool gradient_histogram(std::pair<std::int64_t, Log2Histogram>& out) const;
    // A hist line whole: its step, every layer's histograms and the twin's.
    bool layer_histograms(const RecordedRun& run, HistogramLine& out) const;

private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Whether this build reads records with simdjson (it is optional: without
// it every line is read the careful way).
bool fast_lines_available();

}  // namespace plab
