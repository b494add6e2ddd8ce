#pragma once
// View model of the gradient-histogram panel: one layer's log2 |x| histogram
// of one tensor, scaled (as held) or unscaled (divided by the loss scale),
// against the representable ranges of chosen formats, with the per-layer
// counters. Built from the engine's Log2Histogram and TensorStats.
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "engine/numeric/format.h"
#include "engine/telemetry/tensor_stats.h"
#include "engine/train/run_log.h"
#include "engine/train/step_record.h"

namespace plab {

enum class HistTensor { weight, grad, act, act_grad };

struct HistBar {
    double log2_lo = 0, log2_hi = 0;  // the bin's edges, in binades
    std::int64_t count = 0;
    double fraction = 0;  // of all values counted (zeros, NaN and Inf included)
};

// Where a format's classes begin, in log2 |x| of the values drawn: below
// log2_nonzero they flush to zero, below log2_normal they are subnormal, at
// or above log2_overflow they overflow. Exact boundaries (the rounding
// midpoints of engine/telemetry/tensor_stats_bounds.h), in the same units as
// the bars.
struct FormatBand {
    FormatId format = FormatId::fp16;
    std::string label;  // "FP16"
    double log2_nonzero = 0, log2_normal = 0, log2_overflow = 0;
};

struct HistogramView {
    std::string title;  // "fc2 · weight grad · unscaled"
    std::vector<HistBar> bars;  // the non-empty bins, plus one empty bin each side, in order
    std::vector<FormatBand> bands;
    // The FP32 twin's histogram of the same tensor and view (its gradients
    // times the run's loss scale in the scaled view), drawn over the bars as a
    // ghost: where a format flushed the run's values to zero, their true mass
    // still shows, left of the band. Empty without a twin; fractions of the
    // twin's own count, like the bars'.
    std::vector<HistBar> ghost;
    double shift_log2 = 0;  // how far the unscaled view lies left of the scaled one: log2(scale); 0 when scaled
    std::int64_t zeros = 0, nans = 0, infs = 0, total = 0;
    double x_min = -30, x_max = 10;  // binades to show, whole: the bars, the ghost and the band edges within 12 binades of them (all edges when neither)
    double y_max = 1;  // largest fraction of bars and ghost, > 0
    // Why there are no bars, when there are none: every value counted was
    // zero, NaN or Inf ("no finite non-zero values: 100% NaN"), the layer is
    // a parameter table (an embedding, looked up rather than multiplied),
    // which has no activation ("no activation (a table)"), or there was none
    // ("no values"). Empty when there are bars.
    std::string empty_note;
};

// `scale` is the loss scale of the step the histograms were taken at; the
// unscaled view exists for grad and act_grad only (weights and activations
// are not scaled: for them `unscaled` is ignored). `twin`: the FP32 twin's
// histograms of the same layer (TwinView), for the ghost.
HistogramView make_histogram_view(const LayerHistograms& h, const std::string& layer_name, HistTensor tensor,
                                  bool unscaled, float scale, std::span<const FormatId> formats,
                                  const LayerHistograms* twin = nullptr);

// The x range small multiples share: the union of the views that draw
// something (bars or a ghost). A view with neither spans every band edge
// (BF16's -134 to 128) and would squeeze the others' bars to a pixel; it
// counts only when no view draws anything. {x_min, x_max} in binades.
std::pair<double, double> shared_x_range(std::span<const HistogramView> views);

// Per-layer counters of one tensor view for one format, in percent of count.
struct HistCounters {
    double zero = 0, underflow = 0, subnormal = 0, overflow = 0, nan = 0, inf = 0;
    // Of the FP32 twin's values in the same view, the share the format
    // flushes to zero: what the true values lose, which `underflow` cannot
    // show once the run holds them in the format (they are zeros there).
    // Unset without a twin, and for formats telemetry does not measure.
    std::optional<double> twin_flush;
};
// `twin`: the twin's statistics of the same tensor view (TwinView), or null.
HistCounters make_hist_counters(const TensorStats& s, FormatId format, const TensorStats* twin = nullptr);
// The statistics of the tensor a view shows (the unscaled view exists for grad and act_grad only).
const TensorStats& pick_stats(const LayerRecord& r, HistTensor tensor, bool unscaled);
// Whether the layer has the tensor a view shows: a parameter table (an
// embedding, engine/model/telemetry_layers.h) has weights and gradients but no
// activation, whose statistics stay empty; panels leave out its counters there.
bool layer_holds(const LayerRecord& r, HistTensor tensor);

// Tooltip of one bar: its range in powers of two and decimal, its count and
// fraction, e.g. "2^-14.25 .. 2^-14 (5.1e-05 .. 6.1e-05): 312 values, 3.8%".
std::string bar_tooltip(const HistBar& bar);

// The bit layout of a bar's lower edge 2^log2_lo (rounded to FP32, as a tensor
// would hold it) in format f, sign / exponent / mantissa apart, e.g.
// "FP16 0 00001 0000000000 (0x0400) normal".
std::string bar_edge_bits(const HistBar& bar, FormatId f);

// The record whose histograms a panel shows: the latest recent record that
// took histograms (every telemetry.hist_every steps), at or before `at` when
// given (a jump to an older step); null when none has.
std::shared_ptr<const StepRecord> histogram_record(const RunLogView& log, std::optional<std::int64_t> at = std::nullopt);

// What a histogram panel says when it has no record to show: none taken
// yet (every `hist_every` steps; 0: never), or, for a jump to step `at`
// older than the oldest record with histograms held (`oldest_held`, of the
// newest `steps_held` steps), that those are no longer held.
std::string no_histogram_text(std::optional<std::int64_t> at, std::optional<std::int64_t> oldest_held,
                              std::size_t steps_held, int hist_every);

}  // namespace plab
