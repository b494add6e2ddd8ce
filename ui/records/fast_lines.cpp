#include "ui/records/fast_lines.h"

#include <cmath>
#include <limits>
#include <optional>

#include "ui/present/step_fields.h"
#include "ui/records/run_reader.h"

#if PLAB_HAVE_SIMDJSON
#include <simdjson.h>
#endif

namespace plab {

void HistogramLine::attach_to(StepRecord& r) && {
    r.histograms = std::make_shared<const std::vector<LayerHistograms>>(std::move(layers));
    r.twin_view = twin ? std::make_shared<const TwinView>(std::move(*twin)) : nullptr;
}

#if PLAB_HAVE_SIMDJSON

namespace {

using simdjson::dom::element;
using simdjson::dom::element_type;
using simdjson::dom::object;

// The readers below mirror run_reader.cpp's: `ok` turns false at the first
// thing they would have to complain about.

bool as_float(const element& v, float& out) {
    switch (v.type()) {
        case element_type::INT64: out = static_cast<float>(static_cast<double>(int64_t(v))); return true;
        case element_type::UINT64: out = static_cast<float>(static_cast<double>(uint64_t(v))); return true;
        case element_type::DOUBLE: out = static_cast<float>(double(v)); return true;
        case element_type::STRING: {
            const std::string_view s = v.get_string().value_unsafe();
            if (s == "nan" || s == "-nan") out = std::numeric_limits<float>::quiet_NaN();
            else if (s == "inf") out = std::numeric_limits<float>::infinity();
            else if (s == "-inf") out = -std::numeric_limits<float>::infinity();
            else return false;
            return true;
        }
        default: return false;
    }
}

bool as_integer(const element& v, std::int64_t& out) {
    if (v.type() != element_type::INT64) return false;
    out = int64_t(v);
    return true;
}

std::optional<element> field(const object& o, std::string_view key) {
    element v;
    if (o.at_key(key).get(v)) return std::nullopt;
    return v;
}

bool number(const object& o, std::string_view key, float& out) {
    const auto v = field(o, key);
    return v && as_float(*v, out);
}
bool optional_number(const object& o, std::string_view key, std::optional<float>& out) {
    const auto v = field(o, key);
    if (!v) return true;
    float x;
    if (!as_float(*v, x)) return false;
    out = x;
    return true;
}
bool optional_number(const object& o, std::string_view key, float& out, float absent) {
    std::optional<float> v;
    if (!optional_number(o, key, v)) return false;
    out = v.value_or(absent);
    return true;
}
bool integer(const object& o, std::string_view key, std::int64_t& out) {
    const auto v = field(o, key);
    return v && as_integer(*v, out);
}
bool boolean(const object& o, std::string_view key, bool& out) {
    const auto v = field(o, key);
    return v && v->type() == element_type::BOOL && !v->get_bool().get(out);
}

// step_fields.h's walk over a layer object: present fields are read,
// absent ones keep their defaults (as LayerReader does).
class LayerWalk {
public:
    explicit LayerWalk(const object& layer) { stack_.push_back(layer); }
    void number(std::string_view key, float& v) {
        if (const auto j = child(key)) ok = ok && as_float(*j, v);
    }
    void integer(std::string_view key, std::int64_t& v) {
        if (const auto j = child(key)) ok = ok && as_integer(*j, v);
    }
    void begin(std::string_view key) {
        std::optional<object> o;
        if (const auto j = child(key)) {
            object inner;
            if (j->get_object().get(inner)) ok = false;
            else o = inner;
        }
        stack_.push_back(o);
    }
    void end() { stack_.pop_back(); }
    bool ok = true;

private:
    std::optional<element> child(std::string_view key) const {
        return stack_.back() ? field(*stack_.back(), key) : std::nullopt;
    }
    std::vector<std::optional<object>> stack_;
};

bool read_layers(const element& layers, const RecordedRun& run, bool twin, StepRecord& r) {
    simdjson::dom::array list;
    if (layers.get_array().get(list) || list.size() != run.layer_names.size()) return false;
    r.layers.resize(list.size());
    std::size_t i = 0;
    for (const element item : list) {
        object layer;
        std::string_view name;
        if (item.get_object().get(layer)) return false;
        if (const auto n = field(layer, "name")) {
            if (n->get_string().get(name)) return false;
        }
        if (name != run.layer_names[i]) return false;
        LayerWalk walk(layer);
        visit_layer(r.layers[i], twin, walk);
        if (!walk.ok) return false;
        ++i;
    }
    return true;
}

// run_reader.cpp's unscaled_gradient_amax.
bool gradient_amax(const object& line, float& amax) {
    amax = std::numeric_limits<float>::quiet_NaN();
    const auto layers = field(line, "layers");
    simdjson::dom::array list;
    if (!layers || layers->get_array().get(list) || list.size() == 0) return true;
    amax = 0;
    for (const element item : list) {
        object layer;
        if (item.get_object().get(layer)) continue;
        for (const char* key : {"grad_unscaled", "act_grad_unscaled"}) {
            object stats;
            const auto s = field(layer, key);
            if (!s || s->get_object().get(stats)) continue;
            const auto a = field(stats, "amax");
            if (!a) continue;
            float v;
            if (!as_float(*a, v)) return false;
            if (std::isfinite(v) && v > amax) amax = v;
        }
    }
    return true;
}

// run_reader.cpp's add_histogram.
bool add_histogram(const object& layer, std::string_view key, Log2Histogram& sum) {
    const auto h = field(layer, key);
    if (!h) return true;
    object hist;
    if (h->get_object().get(hist)) return false;
    std::int64_t zeros, nans, pos_infs, neg_infs, first;
    if (!integer(hist, "zeros", zeros) || !integer(hist, "nans", nans) || !integer(hist, "pos_infs", pos_infs) ||
        !integer(hist, "neg_infs", neg_infs) || !integer(hist, "first_bin", first))
        return false;
    const auto b = field(hist, "bins");
    simdjson::dom::array bins;
    if (!b || b->get_array().get(bins) || first < 0 ||
        first + static_cast<std::int64_t>(bins.size()) > Log2Histogram::kBins)
        return false;
    sum.zeros += zeros;
    sum.nans += nans;
    sum.pos_infs += pos_infs;
    sum.neg_infs += neg_infs;
    std::size_t i = static_cast<std::size_t>(first);
    for (const element bin : bins) {
        std::int64_t n;
        if (!as_integer(bin, n)) return false;
        sum.bins[i++] += static_cast<std::uint32_t>(n);
    }
    return true;
}

// A layer's six histograms, under the names of its six tensors.
bool read_histograms(const object& layer, LayerHistograms& h) {
    return add_histogram(layer, "weight", h.weight) && add_histogram(layer, "grad", h.grad) &&
           add_histogram(layer, "grad_unscaled", h.grad_unscaled) && add_histogram(layer, "act", h.act) &&
           add_histogram(layer, "act_grad", h.act_grad) && add_histogram(layer, "act_grad_unscaled", h.act_grad_unscaled);
}

// A layer's "twin" object: the twin's six histograms and, under "stats", its six statistics.
bool read_twin(const element& twin, LayerHistograms& h, LayerRecord& stats) {
    object o, s;
    if (twin.get_object().get(o) || !read_histograms(o, h)) return false;
    const auto st = field(o, "stats");
    if (!st || st->get_object().get(s)) return false;
    LayerWalk walk(s);
    visit_layer(stats, false, walk);
    return walk.ok;
}

bool histogram_layers(const object& line, simdjson::dom::array& list) {
    const auto layers = field(line, "layers");
    if (!layers || layers->get_array().get(list)) return false;
    for (const element item : list)
        if (item.type() != element_type::OBJECT) return false;
    return true;
}

}  // namespace

struct FastLines::Impl {
    simdjson::dom::parser parser;
    object line;
};

FastLines::FastLines() : impl_(std::make_unique<Impl>()) {}
FastLines::~FastLines() = default;

bool FastLines::parse(std::string& text) {
    text.reserve(text.size() + simdjson::SIMDJSON_PADDING);  // the parser reads past the end
    element doc;
    if (impl_->parser.parse(text.data(), text.size(), false).get(doc)) return false;
    return !doc.get_object().get(impl_->line);
}

std::string_view FastLines::type() const {
    std::string_view t;
    const auto v = field(impl_->line, "type");
    return v && !v->get_string().get(t) ? t : std::string_view();
}

bool FastLines::step(const RecordedRun& run, bool with_layers, std::int64_t previous, StepRecord& r,
                     float& grad_amax) const {
    const object& o = impl_->line;
    std::int64_t step = 0, tracker = 0;
    if (!integer(o, "step", step) || step < 1 || step <= previous) return false;
    r.step = step;
    if (!number(o, "loss", r.loss) || !optional_number(o, "loss_ref", r.loss_ref, 0.0f) ||
        !number(o, "scale", r.scale) || !number(o, "scale_after", r.scale_after))
        return false;
    if (field(o, "growth_tracker")) {
        if (!integer(o, "growth_tracker", tracker)) return false;
        r.growth_tracker = static_cast<int>(tracker);
    }
    if (!boolean(o, "found_inf", r.found_inf) || !boolean(o, "skipped", r.skipped) ||
        !boolean(o, "backoff", r.backoff) || !boolean(o, "growth", r.growth))
        return false;
    if (field(o, "first_nonfinite_layer")) {
        std::int64_t index = 0;
        if (!integer(o, "first_nonfinite_layer", index) || index < 0 ||
            index >= static_cast<std::int64_t>(run.layer_names.size()))
            return false;
        r.first_nonfinite_layer = static_cast<int>(index);
    }
    if (!optional_number(o, "grad_norm", r.grad_norm, 0.0f)) return false;
    if (field(o, "clipped") && !boolean(o, "clipped", r.clipped)) return false;
    if (!optional_number(o, "lost_update_frac", r.lost_update_frac, 0.0f) || !optional_number(o, "lr", r.lr, 0.0f) ||
        !optional_number(o, "acc", r.acc) || !optional_number(o, "acc_ref", r.acc_ref) ||
        !optional_number(o, "test_loss", r.test_loss) || !optional_number(o, "test_loss_ref", r.test_loss_ref))
        return false;
    if (with_layers)
        if (const auto layers = field(o, "layers"))
            if (!read_layers(*layers, run, run.twin, r)) return false;
    return gradient_amax(o, grad_amax);
}

bool FastLines::index_entry(bool step, IndexEntry& e) const {
    const object& o = impl_->line;
    return integer(o, "at", e.at) && integer(o, "end", e.end) && integer(o, "line", e.line) &&
           (!step || number(o, "grad_amax", e.grad_amax));
}

bool FastLines::gradient_histogram(std::pair<std::int64_t, Log2Histogram>& out) const {
    simdjson::dom::array list;
    if (!histogram_layers(impl_->line, list)) return false;
    Log2Histogram sum;
    for (const element item : list)
        if (!add_histogram(item.get_object().value_unsafe(), "grad_unscaled", sum)) return false;
    std::int64_t step;
    if (!integer(impl_->line, "step", step)) return false;
    out = {step, sum};
    return true;
}

bool FastLines::layer_histograms(const RecordedRun& run, HistogramLine& out) const {
    simdjson::dom::array list;
    if (!histogram_layers(impl_->line, list) || list.size() != run.layer_names.size()) return false;
    out.layers.assign(list.size(), LayerHistograms{});
    out.twin.reset();
    std::size_t i = 0;
    for (const element item : list) {
        const object layer = item.get_object().value_unsafe();
        if (!read_histograms(layer, out.layers[i])) return false;
        const auto twin = field(layer, "twin");
        if (i == 0 && twin) {
            out.twin.emplace();
            out.twin->layers.resize(list.size());
            out.twin->histograms.resize(list.size());
        }
        if (twin.has_value() != out.twin.has_value()) return false;  // in some layers only: the careful way says where
        if (twin && !read_twin(*twin, out.twin->histograms[i], out.twin->layers[i])) return false;
        ++i;
    }
    return integer(impl_->line, "step", out.step);
}

bool fast_lines_available() { return true; }

#else  // without simdjson: every line is read the careful way

struct FastLines::Impl {};
FastLines::FastLines() = default;
FastLines::~FastLines() = default;
bool FastLines::parse(std::string&) { return false; }
std::string_view FastLines::type() const { return {}; }
bool FastLines::step(const RecordedRun&, bool, std::int64_t, StepRecord&, float&) const { return false; }
bool FastLines::index_entry(bool, IndexEntry&) const { return false; }
bool FastLines::gradient_histogram(std::pair<std::int64_t, Log2Histogram>&) const { return false; }
bool FastLines::layer_histograms(const RecordedRun&, HistogramLine&) const { return false; }
bool fast_lines_available() { return false; }

#endif

}  // namespace plab
