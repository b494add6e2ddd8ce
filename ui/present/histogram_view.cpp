#include "ui/present/histogram_view.h"

#include "ui/present/bit_layout.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

#include "engine/common/number_text.h"
#include "engine/numeric/scalar_cast.h"
#include "engine/telemetry/tensor_stats_bounds.h"

namespace plab {

namespace {

constexpr int kLastBin = Log2Histogram::kBins - 1;
constexpr double kBinWidth = 1.0 / Log2Histogram::kBinsPerBinade;

bool is_gradient(HistTensor t) { return t == HistTensor::grad || t == HistTensor::act_grad; }
bool is_activation(HistTensor t) { return t == HistTensor::act || t == HistTensor::act_grad; }

// LayerHistograms and LayerRecord name their six tensors alike: one choice serves both.
template <typename Layer>
const auto& pick_tensor(const Layer& l, HistTensor tensor, bool unscaled) {
    switch (tensor) {
        case HistTensor::weight: return l.weight;
        case HistTensor::act: return l.act;
        case HistTensor::grad: return unscaled ? l.grad_unscaled : l.grad;
        case HistTensor::act_grad: return unscaled ? l.act_grad_unscaled : l.act_grad;
    }
    return l.weight;
}

const Log2Histogram& pick_histogram(const LayerHistograms& h, HistTensor tensor, bool unscaled) {
    return pick_tensor(h, tensor, unscaled);
}

const char* tensor_text(HistTensor t) {
    switch (t) {
        case HistTensor::weight: return "weight";
        case HistTensor::grad: return "weight grad";
        case HistTensor::act: return "activation";
        case HistTensor::act_grad: return "activation grad";
    }
    return "";
}

std::string make_title(const std::string& layer, HistTensor tensor, bool unscaled) {
    const std::string dot = " \u00b7 ";
    std::string title = layer + dot + tensor_text(tensor);
    if (is_gradient(tensor)) title += dot + (unscaled ? "unscaled" : "scaled");
    return title;
}

// Every value a histogram counted: binned, zero, NaN or Inf.
std::int64_t histogram_total(const Log2Histogram& hist) {
    std::int64_t total = hist.zeros + hist.nans + hist.pos_infs + hist.neg_infs;
    for (std::uint32_t c : hist.bins) total += c;
    return total;
}

// Non-empty bins plus one empty bin each side, as one contiguous run: the
// chart reads as a histogram (gaps inside the span are drawn as empty bars)
// and the padding lets the outermost bars start and end at zero height.
std::vector<HistBar> make_bars(const Log2Histogram& hist, std::int64_t total) {
    int first = -1, last = -1;
    for (int i = 0; i <= kLastBin; ++i) {
        if (hist.bins[static_cast<std::size_t>(i)] == 0) continue;
        if (first < 0) first = i;
        last = i;
    }
    std::vector<HistBar> bars;
    if (first < 0) return bars;
    for (int i = std::max(first - 1, 0); i <= std::min(last + 1, kLastBin); ++i) {
        HistBar b;
        b.log2_lo = Log2Histogram::bin_low_log2(i);
        b.log2_hi = b.log2_lo + kBinWidth;
        b.count = hist.bins[static_cast<std::size_t>(i)];
        b.fraction = static_cast<double>(b.count) / static_cast<double>(total);
        bars.push_back(b);
    }
    return bars;
}

// FP32's own class boundaries (2^-150, 2^-126 - 2^-150, 2^128 - 2^103) are
// midpoints FP32 cannot hold, so format_boundaries (which computes in FP32 and
// serves the narrower formats) does not give them; the same midpoints of
// neighbouring FP32 values are taken here in FP64, where they are exact.
FormatBand fp32_band() {
    const FormatParams p = format_params(FormatId::fp32);
    const double min_subnormal = decode(p, 1u);
    const double largest_subnormal = decode(p, p.man_mask());
    const double min_normal = decode(p, 1u << p.man_bits);
    const double max_finite = decode(p, p.max_code());
    const double below_max = decode(p, p.max_code() - 1u);
    FormatBand band;
    band.log2_nonzero = std::log2(min_subnormal / 2);
    band.log2_normal = std::log2((largest_subnormal + min_normal) / 2);
    band.log2_overflow = std::log2(max_finite + (max_finite - below_max) / 2);
    return band;
}

// The bands are the format's own ranges in both views. The scaled view shows
// what the hardware holds, so its values meet the format's boundaries where
// they are. The unscaled view moves the histogram, not the bands: the values
// drawn there are never cast as such, and keeping the bands fixed lets the
// GUI show loss scaling as the histogram sliding by shift_log2 binades.
FormatBand make_band(FormatId f) {
    FormatBand band;
    if (f == FormatId::fp32) {
        band = fp32_band();
    } else {
        const FormatBoundaries b = format_boundaries(f);
        band.log2_nonzero = std::log2(static_cast<double>(b.nonzero.value));
        band.log2_normal = std::log2(static_cast<double>(b.normal.value));
        band.log2_overflow = std::log2(static_cast<double>(b.overflow.value));
    }
    band.format = f;
    band.label = std::string(format_display_name(f));
    return band;
}

// Whole binades covering the bars, one binade of margin each side, widened
// to the band edges within kReach binades of them: the edges next to the data
// are the ones that tell whether it fits a format, while BF16's or FP32's
// far ends (2^-133, 2^128) would squeeze the data into a sliver; a band whose
// edge lies beyond the axis fills to the axis. Without bars, every band edge.
void fit_axes(HistogramView& v) {
    constexpr double kInf = std::numeric_limits<double>::infinity();
    constexpr double kReach = 12;
    double lo = kInf, hi = -kInf;
    auto cover = [&](double x) {
        lo = std::min(lo, x);
        hi = std::max(hi, x);
    };
    for (const auto* bars : {&v.bars, &v.ghost})
        for (const HistBar& b : *bars) {
            cover(b.log2_lo);
            cover(b.log2_hi);
        }
    const bool has_bars = lo <= hi;
    const double bars_lo = lo, bars_hi = hi;
    auto cover_edge = [&](double x) {
        if (!has_bars || (x >= bars_lo - kReach && x <= bars_hi + kReach)) cover(x);
    };
    for (const FormatBand& b : v.bands) {
        cover_edge(b.log2_nonzero);
        cover_edge(b.log2_normal);
        cover_edge(b.log2_overflow);
    }
    if (lo <= hi) {
        v.x_min = std::floor(lo) - 1;
        v.x_max = std::ceil(hi) + 1;
    }
    v.y_max = 0;
    for (const auto* bars : {&v.bars, &v.ghost})
        for (const HistBar& b : *bars) v.y_max = std::max(v.y_max, b.fraction);
    if (v.y_max <= 0) v.y_max = 1;
}

double percent_of(double part, std::int64_t count) {
    return count == 0 ? 0.0 : 100.0 * part / static_cast<double>(count);
}

// What the values were when none is finite and non-zero: "no finite non-zero
// values: 75% zero, 25% NaN" (3 significant digits a share; shares of 0 left out).
// Short enough for a small chart of "all layers", whose title names the layer.
std::string empty_note(const HistogramView& v, HistTensor tensor) {
    if (v.total == 0 && is_activation(tensor)) return "no activation (a table)";
    if (v.total == 0) return "no values";
    std::string shares;
    const auto add = [&](std::int64_t part, const char* what) {
        if (part == 0) return;
        shares += (shares.empty() ? "" : ", ") + significant_text(percent_of(static_cast<double>(part), v.total), 3) +
                  "% " + what;
    };
    add(v.zeros, "zero");
    add(v.nans, "NaN");
    add(v.infs, "Inf");
    return "no finite non-zero values: " + shares;
}

// "-14.25", "-14": quarter binades are exact in FP64, so the shortest text is the exact one.
std::string power_text(double log2_value) { return "2^" + shortest_text(log2_value); }

}  // namespace

HistogramView make_histogram_view(const LayerHistograms& h, const std::string& layer_name, HistTensor tensor,
                                  bool unscaled, float scale, std::span<const FormatId> formats,
                                  const LayerHistograms* twin) {
    const bool unscaled_view = unscaled && is_gradient(tensor);
    const Log2Histogram& hist = pick_histogram(h, tensor, unscaled_view);

    HistogramView v;
    v.title = make_title(layer_name, tensor, unscaled_view);
    v.zeros = hist.zeros;
    v.nans = hist.nans;
    v.infs = hist.pos_infs + hist.neg_infs;
    v.total = histogram_total(hist);
    v.bars = make_bars(hist, v.total);
    if (twin) {
        const Log2Histogram& ghost = pick_histogram(*twin, tensor, unscaled_view);
        v.ghost = make_bars(ghost, histogram_total(ghost));
    }
    // A non-positive or non-finite scale has no meaningful shift: draw no arrow.
    if (unscaled_view && scale > 0 && std::isfinite(scale)) v.shift_log2 = std::log2(static_cast<double>(scale));
    for (FormatId f : formats) v.bands.push_back(make_band(f));
    fit_axes(v);
    if (v.bars.empty()) v.empty_note = empty_note(v, tensor);
    return v;
}

std::pair<double, double> shared_x_range(std::span<const HistogramView> views) {
    const auto draws = [](const HistogramView& v) { return !v.bars.empty() || !v.ghost.empty(); };
    const bool any_draws = std::any_of(views.begin(), views.end(), draws);
    std::optional<std::pair<double, double>> range;
    for (const HistogramView& v : views) {
        if (any_draws && !draws(v)) continue;
        if (!range) range = std::pair{v.x_min, v.x_max};
        range->first = std::min(range->first, v.x_min);
        range->second = std::max(range->second, v.x_max);
    }
    return range.value_or(std::pair{HistogramView{}.x_min, HistogramView{}.x_max});
}

const TensorStats& pick_stats(const LayerRecord& r, HistTensor tensor, bool unscaled) {
    return pick_tensor(r, tensor, unscaled);
}

bool layer_holds(const LayerRecord& r, HistTensor tensor) { return !is_activation(tensor) || r.act.count > 0; }

HistCounters make_hist_counters(const TensorStats& s, FormatId format, const TensorStats* twin) {
    HistCounters c;
    // Telemetry measures only kRangeFormats; FP32 and TF32 report no range losses.
    const auto* slot = std::find(kRangeFormats.begin(), kRangeFormats.end(), format);
    const bool measured = slot != kRangeFormats.end();
    const auto ranges_of = [&](const TensorStats& t) -> const RangeFractions& {
        return t.ranges[static_cast<std::size_t>(slot - kRangeFormats.begin())];
    };
    if (twin && measured && twin->count > 0) c.twin_flush = 100.0 * static_cast<double>(ranges_of(*twin).underflow);
    if (s.count == 0) return c;
    c.zero = percent_of(static_cast<double>(s.zeros), s.count);
    c.nan = percent_of(static_cast<double>(s.nans), s.count);
    c.inf = percent_of(static_cast<double>(s.pos_infs + s.neg_infs), s.count);
    if (!measured) return c;
    const RangeFractions& r = ranges_of(s);
    c.underflow = 100.0 * static_cast<double>(r.underflow);
    c.subnormal = 100.0 * static_cast<double>(r.subnormal);
    c.overflow = 100.0 * static_cast<double>(r.overflow);
    return c;
}

// "<lo> .. <hi> (<lo decimal> .. <hi decimal>): <count> values, <percent>%":
// edges as powers of two with the shortest exact exponent, decimals to 2
// significant digits, the percent to 1 decimal; "1 value" in the singular.
// The two clamping bins of Log2Histogram also hold what lies beyond them, so
// they read "below 2^-63.75 (6.4e-20)" and "2^31.75 and above (3.6e+09)".
std::string bar_tooltip(const HistBar& bar) {
    const std::string lo = power_text(bar.log2_lo), hi = power_text(bar.log2_hi);
    const std::string lo_dec = significant_text(std::exp2(bar.log2_lo), 2);
    const std::string hi_dec = significant_text(std::exp2(bar.log2_hi), 2);
    std::string range;
    if (bar.log2_lo <= Log2Histogram::kLowExponent) {
        range = "below " + hi + " (" + hi_dec + ")";
    } else if (bar.log2_hi >= Log2Histogram::kHighExponent) {
        range = lo + " and above (" + lo_dec + ")";
    } else {
        range = lo + " .. " + hi + " (" + lo_dec + " .. " + hi_dec + ")";
    }
    char percent[32];
    std::snprintf(percent, sizeof percent, "%.1f%%", 100.0 * bar.fraction);
    return range + ": " + std::to_string(bar.count) + (bar.count == 1 ? " value, " : " values, ") + percent;
}

std::string bar_edge_bits(const HistBar& bar, FormatId f) {
    const CastReport r = describe_cast(f, static_cast<float>(std::exp2(bar.log2_lo)));
    const BitLayout layout = make_bit_layout(r);
    std::string bits;
    BitRole previous = BitRole::sign;
    for (const BitCell& c : layout.cells) {
        if (c.role != previous) bits += ' ';
        bits += c.set ? '1' : '0';
        previous = c.role;
    }
    return layout.format_label + " " + bits + " (" + layout.hex + ") " + layout.value_class;
}

std::shared_ptr<const StepRecord> histogram_record(const RunLogView& log, std::optional<std::int64_t> at) {
    for (auto it = log.recent.rbegin(); it != log.recent.rend(); ++it)
        if ((*it)->histograms && (!at || (*it)->step <= *at)) return *it;
    return nullptr;
}

std::string no_histogram_text(std::optional<std::int64_t> at, std::optional<std::int64_t> oldest_held,
                              std::size_t steps_held, int hist_every) {
    if (at && oldest_held)
        return "No histograms at or before step " + std::to_string(*at) + " are held: the newest " +
               std::to_string(steps_held) + " steps keep theirs, from step " + std::to_string(*oldest_held) +
               " on ('latest' follows the run again).";
    if (hist_every <= 0) return "This run takes no histograms (its telemetry.hist_every is 0).";
    return "No histograms yet: this run takes them every " + std::to_string(hist_every) + " steps.";
}

}  // namespace plab
