#include "ui/present/divergence_view.h"

#include <algorithm>
#include <cmath>
#include <optional>
#include <span>

#include "engine/common/number_text.h"
#include "ui/present/series_axes.h"

namespace plab {

namespace {

using Field = float LayerRecord::*;
using Records = std::span<const std::shared_ptr<const StepRecord>>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
// Without a positive distance to place them, the distance axis shows these decades.
constexpr Bounds kDefaultDecades{-6, 0};
// The cosine axis spans at least [0.9, 1].
constexpr double kHighestCosMin = 0.9;

bool holds_nonfinite(const TensorStats& s) { return s.nans + s.pos_infs + s.neg_infs > 0; }

// The layer's value in a record; none when the record has no such layer
// (telemetry was off for it). The cosine of a gradient that held Inf or NaN
// (an overflow: the step is skipped) measures nothing, whatever number the
// arithmetic gave (0 or NaN); it counts as non-finite.
std::optional<double> layer_value(const StepRecord& r, std::size_t layer, Field field) {
    if (layer >= r.layers.size()) return std::nullopt;
    const LayerRecord& l = r.layers[layer];
    if (field == &LayerRecord::grad_cos && holds_nonfinite(l.grad)) return kNaN;
    return static_cast<double>(l.*field);
}

std::size_t layer_count(Records records) {
    std::size_t n = 0;
    for (const auto& r : records) n = std::max(n, r->layers.size());
    return n;
}

// The run's layer names; an MLP's "fc<n>" where a record has more layers than names.
struct LayerNames {
    const std::vector<std::string>& given;
    std::string operator()(std::size_t layer) const {
        return layer < given.size() ? given[layer] : "fc" + std::to_string(layer + 1);
    }
};

// The decades of the distance axis. A 0 cannot sit on a log axis; it is
// drawn one decade below the smallest positive distance so that "equal to
// the twin bit for bit" reads as its own floor, not as a tiny distance.
struct DistanceScale {
    Bounds decades = kDefaultDecades;
    bool zeros = false;
    double floor() const { return std::pow(10.0, decades.lo); }
};

DistanceScale distance_scale(Records records, std::size_t layers) {
    Extent positive;
    DistanceScale s;
    for (const auto& r : records) {
        for (std::size_t i = 0; i < layers; ++i) {
            const std::optional<double> v = layer_value(*r, i, &LayerRecord::weight_rel_dist);
            if (!v) continue;
            if (std::isfinite(*v) && *v > 0) positive.add(std::log10(*v));
            if (*v == 0) s.zeros = true;
        }
    }
    if (positive.empty()) return s;  // only zeros: they lie on the default floor
    s.decades = integer_bounds(positive);
    if (s.zeros) s.decades.lo -= 1;
    return s;
}

// The distance as drawn on the log axis: NaN (left out) for a non-finite or negative one.
double plotted_distance(double v, const DistanceScale& s) {
    if (v == 0) return s.floor();
    return std::isfinite(v) && v > 0 ? v : kNaN;
}

double plotted_cosine(double v) { return std::isfinite(v) ? v : kNaN; }

// The smallest finite cosine rounded down to a tenth, at most 0.9 (so a run
// whose gradients agree shows them along the top of a [0.9, 1] plot), at least -1.
double cos_axis_min(Records records, std::size_t layers) {
    Extent e;
    for (const auto& r : records) {
        for (std::size_t i = 0; i < layers; ++i) {
            const std::optional<double> v = layer_value(*r, i, &LayerRecord::grad_cos);
            if (v && std::isfinite(*v)) e.add(*v);
        }
    }
    if (e.empty()) return kHighestCosMin;
    return std::clamp(std::floor(10.0 * e.lo) / 10.0, -1.0, kHighestCosMin);
}

// One layer's line: its values at their steps, min/max per pixel column.
template <typename Map>
std::vector<XY> layer_line(Records records, std::size_t layer, Field field, Map map, const StepAxis& axis,
                           int columns) {
    std::vector<double> x, v;
    for (const auto& r : records) {
        const std::optional<double> value = layer_value(*r, layer, field);
        if (!value) continue;
        x.push_back(static_cast<double>(r->step));
        v.push_back(map(*value));
    }
    return column_polyline(min_max_columns(x, v, v, axis.min, axis.max, std::max(columns, 1)));
}

// The steps first..last in at most `columns` columns of consecutive steps, as
// equal as whole steps allow: step first + k is in column k * n / span.
struct StepColumns {
    std::int64_t first = 0;
    std::int64_t span = 1;  // steps first..last
    std::int64_t count = 1;

    std::size_t of(std::int64_t step) const { return static_cast<std::size_t>((step - first) * count / span); }
    // The first step of column c: the smallest k with k * count >= c * span.
    std::int64_t start(std::int64_t c) const { return first + (c * span + count - 1) / count; }
};

StepColumns step_columns(Records records, int columns) {
    StepColumns s;
    s.first = records.front()->step;
    s.span = records.back()->step - s.first + 1;
    s.count = std::min<std::int64_t>(s.span, std::max(columns, 1));
    return s;
}

// How one heat map reads its field: the worse of two values, and where a
// value sits on the colour scale (0 = like the twin, 1 = farthest).
struct HeatRule {
    Field field;
    bool worst_is_max;
    double (*shade)(double value, double lo, double hi);
    double lo, hi;  // the scale's ends, in the units `shade` takes
};

double distance_shade(double v, double lo_decade, double hi_decade) {
    if (v == 0) return 0;
    return std::clamp((std::log10(v) - lo_decade) / (hi_decade - lo_decade), 0.0, 1.0);
}

double cosine_shade(double v, double cos_min, double cos_max) {
    return std::clamp((cos_max - v) / (cos_max - cos_min), 0.0, 1.0);
}

void add_to_cell(HeatCell& cell, double v, const HeatRule& rule) {
    if (!std::isfinite(v)) {
        cell.nonfinite = true;
        return;
    }
    const bool worse = std::isnan(cell.value) || (rule.worst_is_max ? v > cell.value : v < cell.value);
    if (worse) cell.value = v;
}

HeatMap heat_map(Records records, std::size_t layers, const StepColumns& cols, const HeatRule& rule) {
    HeatMap map;
    for (std::int64_t c = 0; c < cols.count; ++c) map.columns.push_back({cols.start(c), cols.start(c + 1) - 1});
    map.rows.assign(layers, std::vector<HeatCell>(map.columns.size()));
    for (const auto& r : records) {
        const std::size_t c = cols.of(r->step);
        for (std::size_t i = 0; i < layers; ++i) {
            if (const std::optional<double> v = layer_value(*r, i, rule.field)) add_to_cell(map.rows[i][c], *v, rule);
        }
    }
    for (auto& row : map.rows) {
        for (HeatCell& cell : row) {
            if (!std::isnan(cell.value)) cell.shade = rule.shade(cell.value, rule.lo, rule.hi);
        }
    }
    return map;
}

// "1e-5" .. "0.01", "0.1", "1", "10", "100", "1e3": a power of ten as a label.
std::string decade_text(int k) {
    if (k >= -2 && k <= 2) return significant_text(std::pow(10.0, k), 1);
    return "1e" + std::to_string(k);
}

// At most five labels, so that they fit a plot a few centimetres tall: a
// decade apart, or as many as it takes, counted down from the top (the far
// end matters most); both ends always, the floor reading "0" when the zeros
// are drawn there.
std::vector<ShadeTick> distance_ticks(const DistanceScale& s) {
    constexpr int kMostIntervals = 4;
    const int lo = static_cast<int>(s.decades.lo);
    const int hi = static_cast<int>(s.decades.hi);
    const int every = (hi - lo + kMostIntervals - 1) / kMostIntervals;
    std::vector<int> decades{lo};
    // Interior ticks at least `every` above the floor, so no two crowd together.
    std::vector<int> from_top;
    for (int k = hi - every; k - lo >= every; k -= every) from_top.push_back(k);
    decades.insert(decades.end(), from_top.rbegin(), from_top.rend());
    decades.push_back(hi);
    std::vector<ShadeTick> ticks;
    for (int k : decades) {
        const bool zero_floor = s.zeros && k == lo;
        ticks.push_back({static_cast<double>(k - lo) / (hi - lo), zero_floor ? "0" : decade_text(k)});
    }
    return ticks;
}

std::vector<ShadeTick> cosine_ticks(double cos_min) {
    const double mid = 0.5 * (1.0 + cos_min);
    return {{0.0, "1"}, {0.5, significant_text(mid, 3)}, {1.0, significant_text(cos_min, 3)}};
}

std::string value_text(double v, int digits) { return std::isfinite(v) ? significant_text(v, digits) : "not finite"; }
std::string distance_text(double v) { return value_text(v, 3); }
// Five digits: gradients that nearly agree differ from 1 in the fourth or fifth.
std::string cosine_text(double v) { return value_text(v, 5); }

// The first layer with the largest rank(value) of the field in the record;
// a NaN value ranks as rank(nan_as).
template <typename Rank>
std::size_t first_largest(const StepRecord& r, Field field, double nan_as, Rank rank) {
    const auto key = [&](std::size_t i) {
        const double v = *layer_value(r, i, field);
        return rank(std::isnan(v) ? nan_as : v);
    };
    std::size_t best = 0;
    for (std::size_t i = 1; i < r.layers.size(); ++i) {
        if (key(i) > key(best)) best = i;
    }
    return best;
}

// "step 300: fc3 is farthest from its FP32 twin (weight distance 0.00214, relative L2;
// gradient cosine 0.99991) · lowest gradient cosine: fc1 0.97311".
std::string divergence_summary(const StepRecord& latest, const LayerNames& layer_name) {
    const std::string step = "step " + std::to_string(latest.step) + ": ";
    if (latest.layers.empty()) return step + "no per-layer telemetry (telemetry.enabled is off)";
    // Non-finite weights are the farthest, a non-finite gradient the least aligned.
    constexpr double inf = std::numeric_limits<double>::infinity();
    const Field dist_field = &LayerRecord::weight_rel_dist;
    const Field cos_field = &LayerRecord::grad_cos;
    const std::size_t far = first_largest(latest, dist_field, inf, [](double v) { return v; });
    const std::size_t low = first_largest(latest, cos_field, -inf, [](double v) { return -v; });
    const auto cos_of = [&](std::size_t i) {
        return layer_name(i) + " " + cosine_text(*layer_value(latest, i, cos_field));
    };
    const double far_dist = *layer_value(latest, far, dist_field);
    if (far_dist == 0) return step + "every layer's weights equal the FP32 twin's; lowest gradient cosine: " + cos_of(low);
    std::string text = step + layer_name(far) + " is farthest from its FP32 twin (weight distance " +
                       distance_text(far_dist) + ", relative L2; gradient cosine " +
                       cosine_text(*layer_value(latest, far, cos_field)) + ")";
    if (low != far) text += " · lowest gradient cosine: " + cos_of(low);
    return text;
}

// Where one layer's value was not finite among the records: "every step
// shown", "step 29", "steps 29-100" (a run), "12 steps in 29-100"; empty when never.
std::string nonfinite_steps(Records records, std::size_t layer, Field field) {
    std::int64_t count = 0, first = 0, last = 0;
    for (const auto& r : records) {
        const std::optional<double> v = layer_value(*r, layer, field);
        if (!v || std::isfinite(*v)) continue;
        if (count++ == 0) first = r->step;
        last = r->step;
    }
    if (count == 0) return {};
    if (count == static_cast<std::int64_t>(records.size())) return "every step shown";
    if (count == 1) return "step " + std::to_string(first);
    const std::string range = std::to_string(first) + "-" + std::to_string(last);
    return count == last - first + 1 ? "steps " + range : std::to_string(count) + " steps in " + range;
}

// "<what>: fc1, fc2 at every step shown; fc3 at steps 29-100": layers with the
// same steps named together, in layer order of their first appearance.
std::string gaps_note(Records records, std::size_t layers, Field field, const std::string& what,
                      const LayerNames& layer_name) {
    std::vector<std::pair<std::string, std::string>> groups;  // steps, layer names
    for (std::size_t i = 0; i < layers; ++i) {
        const std::string steps = nonfinite_steps(records, i, field);
        if (steps.empty()) continue;
        auto group = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == steps; });
        if (group == groups.end())
            groups.push_back({steps, layer_name(i)});
        else
            group->second += ", " + layer_name(i);
    }
    if (groups.empty()) return {};
    std::string note = what + ": ";
    for (std::size_t g = 0; g < groups.size(); ++g)
        note += (g > 0 ? "; " : "") + groups[g].second + " at " + groups[g].first;
    return note;
}

void fill_view(DivergenceView& v, Records records, std::size_t layers, int columns, const LayerNames& layer_name) {
    const StepAxis axis{static_cast<double>(records.front()->step - 1), static_cast<double>(records.back()->step)};
    v.step_min = axis.min;
    v.step_max = axis.max;
    const DistanceScale dist = distance_scale(records, layers);
    v.rel_dist_min = std::pow(10.0, dist.decades.lo);
    v.rel_dist_max = std::pow(10.0, dist.decades.hi);
    v.rel_dist_zeros = dist.zeros;
    v.cos_min = cos_axis_min(records, layers);
    const auto distance = [&dist](double d) { return plotted_distance(d, dist); };
    for (std::size_t i = 0; i < layers; ++i) {
        v.layers.push_back({layer_name(i),
                            layer_line(records, i, &LayerRecord::weight_rel_dist, distance, axis, columns),
                            layer_line(records, i, &LayerRecord::grad_cos, plotted_cosine, axis, columns)});
    }
    const StepColumns cols = step_columns(records, columns);
    v.rel_dist_heat = heat_map(records, layers, cols,
                               {&LayerRecord::weight_rel_dist, true, distance_shade, dist.decades.lo, dist.decades.hi});
    v.rel_dist_heat.ticks = distance_ticks(dist);
    v.grad_cos_heat = heat_map(records, layers, cols, {&LayerRecord::grad_cos, false, cosine_shade, v.cos_min, v.cos_max});
    v.grad_cos_heat.ticks = cosine_ticks(v.cos_min);
    std::vector<std::string> names;
    for (const DivergenceLayer& l : v.layers) names.push_back(l.name);
    v.blocks = row_label_blocks(names);
    v.rel_dist_gaps =
        gaps_note(records, layers, &LayerRecord::weight_rel_dist, "weight distance not finite", layer_name);
    v.grad_cos_gaps = gaps_note(records, layers, &LayerRecord::grad_cos,
                                "gradient cosine not finite (Inf/NaN in the gradient)", layer_name);
}

}  // namespace

DivergenceView make_divergence_view(const RunLogView& log, bool twin, int columns,
                                    const std::vector<std::string>& layer_names) {
    const LayerNames names{layer_names};
    DivergenceView v;
    v.twin = twin;
    if (!twin) {
        v.summary = "no FP32 twin in this run (twin=false): nothing to compare against";
        return v;
    }
    const StepRecord* latest = log.latest();
    if (latest == nullptr) {
        v.summary = "no steps yet";
        return v;
    }
    const Records records(log.recent);
    const std::size_t layers = layer_count(records);
    if (layers > 0) fill_view(v, records, layers, columns, names);
    v.summary = divergence_summary(*latest, names);
    return v;
}

std::string heat_cell_text(const DivergenceView& view, DivergenceMetric metric, std::size_t row, std::size_t column) {
    const bool distance = metric == DivergenceMetric::rel_dist;
    const HeatMap& map = distance ? view.rel_dist_heat : view.grad_cos_heat;
    const HeatColumn& c = map.columns.at(column);
    const HeatCell& cell = map.rows.at(row).at(column);
    std::string text = view.layers.at(row).name + " · ";
    text += c.first_step == c.last_step ? "step " + std::to_string(c.first_step)
                                        : "steps " + std::to_string(c.first_step) + "–" + std::to_string(c.last_step);
    if (!std::isnan(cell.value)) {
        text += distance ? " · largest distance " + distance_text(cell.value)
                         : " · smallest cosine " + cosine_text(cell.value);
    }
    if (cell.nonfinite) text += distance ? " · weights not finite" : " · gradient not finite (overflow)";
    if (std::isnan(cell.value) && !cell.nonfinite) text += " · no record";
    return text;
}

}  // namespace plab
