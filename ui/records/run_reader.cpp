#include "ui/records/run_reader.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <iterator>
#include <thread>
#include <fstream>
#include <istream>
#include <limits>
#include <nlohmann/json.hpp>

#include "engine/common/error.h"
#include "ui/present/step_fields.h"
#include "ui/records/fast_lines.h"
#include "ui/records/record_index.h"

namespace plab {

namespace {

using Json = nlohmann::json;

constexpr std::uint64_t kProgressBytes = 4u << 20;
constexpr int kRecordVersion = 1;

// Where a problem is: "run.jsonl line 12: layers[1].grad.rms".
struct Place {
    const std::string& label;
    std::int64_t line = 0;

    [[noreturn]] void fail(const std::string& field, const std::string& what) const {
        throw Error(label + " line " + std::to_string(line) + ": " + (field.empty() ? "" : field + ": ") + what);
    }
};

std::string shown(const Json& v) {
    std::string s = v.dump();
    return s.size() > 40 ? s.substr(0, 37) + "..." : s;
}

// A float field: a JSON number, or the strings the writers use for NaN and infinities.
float as_float(const Json& v, const Place& at, const std::string& field) {
    if (v.is_number()) return static_cast<float>(v.get<double>());
    if (v.is_string()) {
        const std::string& s = v.get_ref<const std::string&>();
        if (s == "nan" || s == "-nan") return std::numeric_limits<float>::quiet_NaN();
        if (s == "inf") return std::numeric_limits<float>::infinity();
        if (s == "-inf") return -std::numeric_limits<float>::infinity();
    }
    at.fail(field, shown(v) + " is not a number (nor \"nan\", \"inf\", \"-inf\")");
}

std::int64_t as_integer(const Json& v, const Place& at, const std::string& field) {
    if (v.is_number_integer()) return v.get<std::int64_t>();
    at.fail(field, shown(v) + " is not an integer");
}

bool as_bool(const Json& v, const Place& at, const std::string& field) {
    if (v.is_boolean()) return v.get<bool>();
    at.fail(field, shown(v) + " is not true or false");
}

std::string as_string(const Json& v, const Place& at, const std::string& field) {
    if (v.is_string()) return v.get<std::string>();
    at.fail(field, shown(v) + " is not a string");
}

// The fields of one JSON object, read by name; `path` prefixes messages.
class Fields {
public:
    Fields(const Json& object, const Place& at, std::string path) : object_(object), at_(at), path_(std::move(path)) {}

    const Json* find(std::string_view key) const {
        const auto it = object_.find(key);
        return it == object_.end() ? nullptr : &*it;
    }
    std::string name(std::string_view key) const { return path_.empty() ? std::string(key) : path_ + "." + std::string(key); }
    const Json& required(std::string_view key) const {
        if (const Json* v = find(key)) return *v;
        at_.fail(name(key), "missing");
    }
    float number(std::string_view key) const { return as_float(required(key), at_, name(key)); }
    std::int64_t integer(std::string_view key) const { return as_integer(required(key), at_, name(key)); }
    bool boolean(std::string_view key) const { return as_bool(required(key), at_, name(key)); }
    std::optional<float> optional_number(std::string_view key) const {
        const Json* v = find(key);
        return v ? std::optional<float>(as_float(*v, at_, name(key))) : std::nullopt;
    }
    std::string optional_string(std::string_view key) const {
        const Json* v = find(key);
        return v ? as_string(*v, at_, name(key)) : std::string();
    }

private:
    const Json& object_;
    const Place& at_;
    std::string path_;
};

// Fills a LayerRecord through step_fields.h's walk: the field names the
// writers use, read back. Objects a record leaves out (a probe record's
// activations, the twin's distances) keep their defaults.
class LayerReader {
public:
    LayerReader(const Json& layer, const Place& at, std::string path) : at_(at) {
        stack_.push_back({&layer, std::move(path)});
    }
    void number(std::string_view key, float& v) {
        if (const Json* j = child(key)) v = as_float(*j, at_, field(key));
    }
    void integer(std::string_view key, std::int64_t& v) {
        if (const Json* j = child(key)) v = as_integer(*j, at_, field(key));
    }
    void begin(std::string_view key) {
        const Json* j = child(key);
        if (j && !j->is_object()) at_.fail(field(key), shown(*j) + " is not an object");
        stack_.push_back({j, field(key)});
    }
    void end() { stack_.pop_back(); }

private:
    struct Level {
        const Json* object;  // null: absent, so is everything below it
        std::string path;
    };
    const Json* child(std::string_view key) const {
        const Json* o = stack_.back().object;
        if (!o) return nullptr;
        const auto it = o->find(key);
        return it == o->end() ? nullptr : &*it;
    }
    std::string field(std::string_view key) const { return stack_.back().path + "." + std::string(key); }

    const Place& at_;
    std::vector<Level> stack_;
};

void read_header(const Json& line, const Place& at, RecordedRun& run) {
    if (!line.is_object() || line.value("type", std::string()) != "run")
        at.fail("", "not a run record: its first line must be {\"type\":\"run\", ...} (docs/telemetry.md)");
    const Fields f(line, at, "");
    const std::int64_t version = f.integer("version");
    if (version != kRecordVersion)
        at.fail("version", std::to_string(version) + " is not a record version this lab reads (" +
                               std::to_string(kRecordVersion) + ")");
    run.version = static_cast<int>(version);
    run.backend = f.optional_string("backend");
    const Json& config = f.required("config");
    if (!config.is_object()) at.fail("config", shown(config) + " is not an object");
    run.config_json = config.dump();
    run.name = Fields(config, at, "config").optional_string("name");
    if (const Json* twin = config.contains("twin") ? &config["twin"] : nullptr) run.twin = as_bool(*twin, at, "config.twin");
    const Json& layers = f.required("layers");
    if (!layers.is_array()) at.fail("layers", shown(layers) + " is not a list");
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const std::string path = "layers[" + std::to_string(i) + "]";
        if (!layers[i].is_object()) at.fail(path, shown(layers[i]) + " is not an object");
        const Fields layer(layers[i], at, path);
        run.layer_names.push_back(as_string(layer.required("name"), at, path + ".name"));
        run.layer_shapes.push_back(layer.optional_string("shape"));
    }
    if (const Json* source = f.find("source")) {
        if (!source->is_object()) at.fail("source", shown(*source) + " is not an object");
        const Fields s(*source, at, "source");
        run.source = "plab_probe " + s.optional_string("probe") + ", torch " + s.optional_string("torch");
        if (const Json* ranks = s.find("world_size"); ranks && as_integer(*ranks, at, "source.world_size") > 1)
            run.source += ", rank " + std::to_string(s.integer("rank")) + " of " +
                          std::to_string(as_integer(*ranks, at, "source.world_size"));
    }
}

void read_layers(const Json& layers, const Place& at, const RecordedRun& run, StepRecord& r) {
    if (!layers.is_array()) at.fail("layers", shown(layers) + " is not a list");
    if (layers.size() != run.layer_names.size())
        at.fail("layers", std::to_string(layers.size()) + " entries, but the header names " +
                              std::to_string(run.layer_names.size()) + " layers");
    r.layers.resize(layers.size());
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const std::string path = "layers[" + std::to_string(i) + "]";
        if (!layers[i].is_object()) at.fail(path, shown(layers[i]) + " is not an object");
        const std::string name = Fields(layers[i], at, path).optional_string("name");
        if (name != run.layer_names[i])
            at.fail(path + ".name", "\"" + name + "\" where the header has \"" + run.layer_names[i] + "\"");
        LayerReader reader(layers[i], at, path);
        visit_layer(r.layers[i], run.twin, reader);
    }
}

// The largest finite |unscaled gradient| of a step's layers, read from the
// statistics' amax (taken over finite values); NaN without layers.
float unscaled_gradient_amax(const Json& line, const Place& at) {
    const auto layers = line.find("layers");
    if (layers == line.end() || !layers->is_array() || layers->empty()) return std::numeric_limits<float>::quiet_NaN();
    float amax = 0;
    for (std::size_t i = 0; i < layers->size(); ++i) {
        const Json& layer = (*layers)[i];
        for (const char* key : {"grad_unscaled", "act_grad_unscaled"}) {
            const auto stats = layer.is_object() ? layer.find(key) : layer.end();
            if (!layer.is_object() || stats == layer.end() || !stats->is_object() || !stats->contains("amax")) continue;
            const float v = as_float((*stats)["amax"], at,
                                     "layers[" + std::to_string(i) + "]." + key + ".amax");
            if (std::isfinite(v) && v > amax) amax = v;
        }
    }
    return amax;
}

StepRecord read_step(const Json& line, const Place& at, const RecordedRun& run, bool with_layers) {
    const Fields f(line, at, "");
    StepRecord r;
    r.step = f.integer("step");
    if (r.step < 1) at.fail("step", std::to_string(r.step) + " is not a step number (1, 2, ...)");
    if (!run.steps.empty() && r.step <= run.steps.back().step)
        at.fail("step", std::to_string(r.step) + " does not follow step " + std::to_string(run.steps.back().step));
    r.loss = f.number("loss");
    r.loss_ref = f.optional_number("loss_ref").value_or(0.0f);
    r.scale = f.number("scale");
    r.scale_after = f.number("scale_after");
    if (const Json* g = f.find("growth_tracker")) r.growth_tracker = static_cast<int>(as_integer(*g, at, "growth_tracker"));
    r.found_inf = f.boolean("found_inf");
    r.skipped = f.boolean("skipped");
    r.backoff = f.boolean("backoff");
    r.growth = f.boolean("growth");
    if (const Json* first = f.find("first_nonfinite_layer")) {
        const std::int64_t index = as_integer(*first, at, "first_nonfinite_layer");
        if (index < 0 || index >= static_cast<std::int64_t>(run.layer_names.size()))
            at.fail("first_nonfinite_layer", std::to_string(index) + " is not an index into the header's " +
                                                 std::to_string(run.layer_names.size()) + " layers");
        r.first_nonfinite_layer = static_cast<int>(index);
    }
    r.grad_norm = f.optional_number("grad_norm").value_or(0.0f);
    if (const Json* c = f.find("clipped")) r.clipped = as_bool(*c, at, "clipped");
    r.lost_update_frac = f.optional_number("lost_update_frac").value_or(0.0f);
    r.lr = f.optional_number("lr").value_or(0.0f);
    r.acc = f.optional_number("acc");
    r.acc_ref = f.optional_number("acc_ref");
    r.test_loss = f.optional_number("test_loss");
    r.test_loss_ref = f.optional_number("test_loss_ref");
    if (with_layers)
        if (const Json* layers = f.find("layers")) read_layers(*layers, at, run, r);
    return r;
}

// Adds one histogram of a hist line into `sum` (the layout of run_writer.cpp's
// write_histogram: bins from first_bin on). An absent histogram adds nothing.
void add_histogram(const Json& layer, std::string_view key, const Place& at, const std::string& layer_path,
                   Log2Histogram& sum) {
    const std::string path = layer_path + "." + std::string(key);
    const auto h = layer.find(key);
    if (h == layer.end()) return;
    if (!h->is_object()) at.fail(path, shown(*h) + " is not an object");
    const Fields hist(*h, at, path);
    sum.zeros += hist.integer("zeros");
    sum.nans += hist.integer("nans");
    sum.pos_infs += hist.integer("pos_infs");
    sum.neg_infs += hist.integer("neg_infs");
    const std::int64_t first = hist.integer("first_bin");
    const Json& bins = hist.required("bins");
    if (!bins.is_array() || first < 0 || first + static_cast<std::int64_t>(bins.size()) > Log2Histogram::kBins)
        at.fail(path + ".bins", "not a list of at most " + std::to_string(Log2Histogram::kBins) +
                                    " bins from first_bin " + std::to_string(first));
    for (std::size_t b = 0; b < bins.size(); ++b)
        sum.bins[static_cast<std::size_t>(first) + b] +=
            static_cast<std::uint32_t>(as_integer(bins[b], at, path + ".bins[" + std::to_string(b) + "]"));
}

const Json& histogram_layers(const Json& line, const Place& at) {
    const Json& layers = Fields(line, at, "").required("layers");
    if (!layers.is_array()) at.fail("layers", shown(layers) + " is not a list");
    for (std::size_t i = 0; i < layers.size(); ++i)
        if (!layers[i].is_object()) at.fail("layers[" + std::to_string(i) + "]", shown(layers[i]) + " is not an object");
    return layers;
}

// A hist line's unscaled weight-gradient histograms, summed over its layers.
std::pair<std::int64_t, Log2Histogram> read_gradient_histogram(const Json& line, const Place& at) {
    Log2Histogram sum;
    const Json& layers = histogram_layers(line, at);
    for (std::size_t i = 0; i < layers.size(); ++i)
        add_histogram(layers[i], "grad_unscaled", at, "layers[" + std::to_string(i) + "]", sum);
    return {Fields(line, at, "").integer("step"), sum};
}

// A layer's six histograms, under the names of its six tensors.
void read_histograms(const Json& layer, const Place& at, const std::string& path, LayerHistograms& h) {
    add_histogram(layer, "weight", at, path, h.weight);
    add_histogram(layer, "grad", at, path, h.grad);
    add_histogram(layer, "grad_unscaled", at, path, h.grad_unscaled);
    add_histogram(layer, "act", at, path, h.act);
    add_histogram(layer, "act_grad", at, path, h.act_grad);
    add_histogram(layer, "act_grad_unscaled", at, path, h.act_grad_unscaled);
}

// A layer's "twin" object: the twin's six histograms and, under "stats", its six statistics.
void read_twin(const Json& twin, const Place& at, const std::string& path, LayerHistograms& h, LayerRecord& stats) {
    if (!twin.is_object()) at.fail(path, shown(twin) + " is not an object");
    read_histograms(twin, at, path, h);
    const Json& s = Fields(twin, at, path).required("stats");
    if (!s.is_object()) at.fail(path + ".stats", shown(s) + " is not an object");
    LayerReader reader(s, at, path + ".stats");
    visit_layer(stats, false, reader);
}

// A hist line: its step, its histograms layer by layer in the header's layer
// order, and the twin's where its layers hold them (all of them, or none).
HistogramLine read_layer_histograms(const Json& line, const Place& at, const RecordedRun& run) {
    const Json& layers = histogram_layers(line, at);
    if (layers.size() != run.layer_names.size())
        at.fail("layers", std::to_string(layers.size()) + " entries, but the header names " +
                              std::to_string(run.layer_names.size()) + " layers");
    HistogramLine out;
    out.step = Fields(line, at, "").integer("step");
    out.layers.resize(layers.size());
    if (!layers.empty() && layers[0].contains("twin")) {
        out.twin.emplace();
        out.twin->layers.resize(layers.size());
        out.twin->histograms.resize(layers.size());
    }
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const std::string path = "layers[" + std::to_string(i) + "]";
        read_histograms(layers[i], at, path, out.layers[i]);
        const auto twin = layers[i].find("twin");
        if ((twin != layers[i].end()) != out.twin.has_value())
            at.fail(path + ".twin", out.twin ? "missing, while layers[0] has one"
                                             : "present, while layers[0] has none: the twin's histograms are in every "
                                               "layer or in none");
        if (out.twin) read_twin(*twin, at, path + ".twin", out.twin->histograms[i], out.twin->layers[i]);
    }
    return out;
}

// The step record a hist line's histograms belong to (the writers put a hist
// line right after its step's line); nullptr when no step line came before.
StepRecord* step_of_histograms(RecordedRun& run, std::int64_t step) {
    const auto it = std::lower_bound(run.steps.begin(), run.steps.end(), step,
                                     [](const StepRecord& r, std::int64_t s) { return r.step < s; });
    return it == run.steps.end() || it->step != step ? nullptr : &*it;
}

void attach_histograms(const Json& line, const Place& at, RecordedRun& run) {
    HistogramLine read = read_layer_histograms(line, at, run);
    StepRecord* r = step_of_histograms(run, read.step);
    if (!r) at.fail("step", std::to_string(read.step) + ": histograms of a step that has no step line before them");
    std::move(read).attach_to(*r);
}

// Drops the layers and histograms of the step that just left the newest `kept`.
void forget_old_layers(RecordedRun& run, std::size_t kept) {
    if (run.steps.size() <= kept) return;
    StepRecord& old = run.steps[run.steps.size() - 1 - kept];
    std::vector<LayerRecord>().swap(old.layers);
    old.histograms.reset();
    old.twin_view.reset();
}

// A step or hist line read the fast way (fast_lines.h); false leaves `run`
// as it was, for the careful way to read the line.
bool read_fast(FastLines& fast, const RunReadOptions& options, RecordedRun& run) {
    const std::string_view kind = fast.type();
    if (kind == "step") {
        StepRecord r;
        float amax = 0;
        if (!fast.step(run, options.layers, run.steps.empty() ? 0 : run.steps.back().step, r, amax)) return false;
        run.steps.push_back(std::move(r));
        run.grad_amax.push_back(amax);
        forget_old_layers(run, options.layers_kept);
        return true;
    }
    if (kind != "hist") return false;
    std::pair<std::int64_t, Log2Histogram> sum;
    if (options.gradient_histograms && !fast.gradient_histogram(sum)) return false;
    HistogramLine read;
    StepRecord* owner = nullptr;
    if (options.layer_histograms && options.layers_kept > 0)
        if (!fast.layer_histograms(run, read) || !(owner = step_of_histograms(run, read.step))) return false;
    ++run.histogram_lines;
    if (options.gradient_histograms) run.gradient_histograms.push_back(sum);
    if (owner) std::move(read).attach_to(*owner);
    return true;
}

RecordedNan read_nan(const Json& line, const Place& at) {
    const Fields f(line, at, "");
    RecordedNan n;
    n.step = f.integer("step");
    n.phase = f.optional_string("phase");
    n.layer = f.optional_string("layer");
    n.op = f.optional_string("op");
    n.tensor = f.optional_string("tensor");
    n.format = f.optional_string("format");
    n.diagnosis = f.optional_string("diagnosis");
    if (const Json* v = f.find("nans")) n.nans = as_integer(*v, at, "nans");
    if (const Json* v = f.find("infs")) n.infs = as_integer(*v, at, "infs");
    n.scale = f.optional_number("scale").value_or(1.0f);
    return n;
}

// A "samples" line: each sample's prompt and model text, the expected
// answer and the twin's text where the writer had them.
std::shared_ptr<const TextSamples> read_samples(const Json& line, const Place& at) {
    auto out = std::make_shared<TextSamples>();
    const Fields f(line, at, "");
    out->step = f.integer("step");
    const Json& samples = f.required("samples");
    if (!samples.is_array()) at.fail("samples", shown(samples) + " is not a list");
    for (std::size_t i = 0; i < samples.size(); ++i) {
        const std::string path = "samples[" + std::to_string(i) + "]";
        if (!samples[i].is_object()) at.fail(path, shown(samples[i]) + " is not an object");
        const Fields s(samples[i], at, path);
        out->samples.push_back({as_string(s.required("prompt"), at, path + ".prompt"), s.optional_string("expected"),
                                as_string(s.required("model"), at, path + ".model"), s.optional_string("twin")});
    }
    return out;
}

// Any line after the header, read with nlohmann-json.
void read_careful(const Json& line, const Place& at, const RunReadOptions& options, RecordedRun& run,
                  std::vector<std::string>& unknown_types) {
    if (!line.is_object()) at.fail("", shown(line) + " is not a JSON object");
    const Json* type = line.contains("type") ? &line["type"] : nullptr;
    const std::string kind = type ? as_string(*type, at, "type") : std::string();
    if (kind == "step") {
        run.steps.push_back(read_step(line, at, run, options.layers));
        run.grad_amax.push_back(unscaled_gradient_amax(line, at));
        forget_old_layers(run, options.layers_kept);
    } else if (kind == "hist") {
        ++run.histogram_lines;
        if (options.gradient_histograms) run.gradient_histograms.push_back(read_gradient_histogram(line, at));
        if (options.layer_histograms && options.layers_kept > 0) attach_histograms(line, at, run);
    } else if (kind == "nan") {
        run.nans.push_back(read_nan(line, at));
    } else if (kind == "samples") {
        run.samples.push_back(read_samples(line, at));
    } else if (kind != "edit" && kind != "run" &&
               std::find(unknown_types.begin(), unknown_types.end(), kind) == unknown_types.end()) {
        unknown_types.push_back(kind);
        run.warnings.push_back(at.label + " line " + std::to_string(at.line) + ": lines of type \"" + kind +
                               "\" are not known to this lab: skipped");
    }
}

// The second pass (see read_run): the layers of the newest `layers_kept`
// steps and the histograms of as many of the newest hist lines, read again
// from where the first pass found their lines.
void read_newest_layers(std::istream& in, const std::string& label, const RunReadOptions& options, RecordedRun& run) {
    in.clear();
    FastLines fast;
    std::string text;
    const auto at_line = [&](const RecordLine& l) {
        in.seekg(l.offset);
        std::getline(in, text);
        return !options.careful_only && fast.parse(text);
    };
    const std::size_t n = run.steps.size(), first = n - std::min(n, options.layers_kept);
    for (std::size_t i = first; i < n; ++i) {
        const bool parsed = at_line(run.step_offsets[i]);
        StepRecord r;
        float amax = 0;
        const Place at{label, run.step_offsets[i].line};
        if (parsed && fast.step(run, true, i ? run.steps[i - 1].step : 0, r, amax)) {
            if (r.step != run.steps[i].step) at.fail("step", "not the step the first pass read there (has the file changed?)");
            run.steps[i].layers = std::move(r.layers);
            continue;
        }
        const Json line = Json::parse(text);
        if (Fields(line, at, "").integer("step") != run.steps[i].step)
            at.fail("step", "not the step the first pass read there (has the file changed?)");
        if (const auto layers = line.find("layers"); layers != line.end())
            read_layers(*layers, at, run, run.steps[i]);
    }
    if (!options.layer_histograms) return;
    const auto& hists = run.histogram_offsets;
    for (std::size_t k = hists.size() - std::min(hists.size(), options.layers_kept); k < hists.size(); ++k) {
        const bool parsed = at_line(hists[k].second);
        HistogramLine read;
        if (!parsed || !fast.layer_histograms(run, read))
            read = read_layer_histograms(Json::parse(text), Place{label, hists[k].second.line}, run);
        StepRecord* owner = step_of_histograms(run, read.step);
        if (owner && static_cast<std::size_t>(owner - run.steps.data()) >= first) std::move(read).attach_to(*owner);
    }
}

// One line after the header, the fast way where it can be, else the careful
// way; false when it is not JSON.
bool read_line(std::string& text, const Place& at, FastLines& fast, const RunReadOptions& options, RecordedRun& run,
               std::vector<std::string>& unknown_types) {
    if (!options.careful_only && fast.parse(text) && read_fast(fast, options, run)) return true;
    const Json line = Json::parse(text, nullptr, false);
    if (line.is_discarded()) return false;
    read_careful(line, at, options, run, unknown_types);
    return true;
}

// What reading a range of a record's lines gave: the lines after the
// header, read with the header's fields copied into `part`. Line numbers
// and step indices are the range's own until merged (merge_range).
struct RangeRead {
    RecordedRun part;
    std::int64_t lines = 0;            // lines in the range
    std::int64_t first_step_line = 0;  // the range's line of its first step line; 0: none
    std::vector<RecordLine> step_offsets;        // with offsets: every step line's
    std::vector<std::pair<std::int64_t, RecordLine>> histogram_offsets;  // (step, or -1 before the range's first)
    std::string error;                 // the first problem, its message as thrown
    std::int64_t error_line = 0;
    bool cut_off = false;              // its last line was cut off (skipped, with a warning)
    std::int64_t end = -1;             // read through the index: the byte after its last line
};

// Reads the lines from the stream's position up to byte `end` (-1: to the
// end of the stream), line numbers from 1, as the range's own; with
// `offsets`, where each step and hist line starts. Whatever
// goes wrong is kept in the result (a range may be read on a thread of its
// own), with the line it happened on.
RangeRead read_range(std::istream& in, std::streamoff end, const std::string& label, const RunReadOptions& first,
                     const RecordedRun& header, bool offsets, const std::function<void(std::uint64_t)>& bytes_read,
                     const std::atomic<bool>* stop) {
    RangeRead r;
    RecordedRun& run = r.part;
    run.version = header.version;
    run.layer_names = header.layer_names;
    run.twin = header.twin;
    Place at{label};
    std::string text;
    std::vector<std::string> unknown_types;
    FastLines fast;
    std::streampos pos = in.tellg();
    try {
        while ((end < 0 || pos < end) && std::getline(in, text)) {
            ++at.line;
            const bool cut_off = in.eof();  // no newline after it: the writer stopped mid-line
            if (bytes_read) bytes_read(text.size() + 1);
            if (stop && stop->load(std::memory_order_relaxed)) break;
            const std::streampos line_pos = pos;
            if (offsets || end >= 0) pos = in.tellg();
            if (text.empty() || text == "\r") continue;
            const std::size_t steps_before = run.steps.size();
            const std::int64_t hists_before = run.histogram_lines;
            if (!read_line(text, at, fast, first, run, unknown_types)) {
                if (!cut_off) at.fail("", "not a JSON object");
                run.warnings.push_back(label + " line " + std::to_string(at.line) +
                                       " is cut off (the run stopped while writing it): skipped");
                r.cut_off = true;
                break;
            }
            if (run.steps.size() > steps_before && r.first_step_line == 0) r.first_step_line = at.line;
            const RecordLine where{static_cast<std::int64_t>(line_pos), at.line};
            if (offsets && run.steps.size() > steps_before) r.step_offsets.push_back(where);
            if (offsets && run.histogram_lines > hists_before)
                r.histogram_offsets.push_back({run.steps.empty() ? -1 : run.steps.back().step, where});
        }
    } catch (const std::exception& e) {  // on a thread of its own: kept for the merge to throw
        r.error = e.what();
        r.error_line = at.line;
    }
    r.lines = at.line;
    return r;
}

// An index that does not describe its record (record_index.h): the record is then read whole.
struct IndexMismatch : std::runtime_error {
    using std::runtime_error::runtime_error;
};

// Whether the record holds, at `e`, a whole line of `type` (and for a step
// line, that step): both writers start a line with its type and step.
bool record_line_is(std::istream& record, const IndexEntry& e, std::string_view type, std::int64_t step) {
    std::string want = "{\"type\":\"" + std::string(type) + "\"";
    if (step > 0) want += ",\"step\":" + std::to_string(step) + ",";
    std::string got(want.size(), '\0');
    char last = 0;
    record.clear();
    record.seekg(e.at);
    record.read(got.data(), static_cast<std::streamsize>(got.size()));
    record.seekg(e.end - 1);
    record.get(last);
    return record && got == want && last == '\n';
}

// The lines of a record its index covers, read from the index: each step's
// fields from its entry, the other lines from the record where the entry
// says (hist lines only when the read keeps their histograms). Line numbers
// are made the range's own, as read_range's. Throws IndexMismatch when the
// index does not describe this record; the record's own problems are kept
// in the result, as read_range keeps them.
RangeRead read_indexed(std::istream& index, std::istream& record, std::int64_t header_lines,
                       std::uint64_t header_bytes, std::streamoff size, const std::string& label,
                       const RunReadOptions& first, const RecordedRun& header) {
    RangeRead r;
    RecordedRun& run = r.part;
    run.version = header.version;
    run.layer_names = header.layer_names;
    run.twin = header.twin;
    std::vector<std::string> unknown_types;
    FastLines fast, line_reader;
    std::string text, line_text;
    const bool hists_read = first.gradient_histograms || (first.layer_histograms && first.layers_kept > 0);
    const std::string index_label = record_index_path(label);
    IndexEntry e{.end = static_cast<std::int64_t>(header_bytes), .line = header_lines};
    std::int64_t checked = 0, last_step = 0, reported = 0;
    std::string last_type;
    while (std::getline(index, text)) {
        if (index.eof()) break;  // cut off mid-line: the record's lines after the last whole entry are read as usual
        const IndexEntry before = e;
        std::string type;
        StepRecord step;
        if (!first.careful_only && fast.parse(text) && (type = fast.type()) == "step") {
            float unused;
            if (!fast.index_entry(true, e) || !fast.step(run, false, run.steps.empty() ? 0 : run.steps.back().step, step, unused))
                throw IndexMismatch("an entry the fast way does not read");
        } else if (!first.careful_only && !type.empty()) {
            if (!fast.index_entry(false, e)) throw IndexMismatch("an entry without its place");
        } else {
            try {
                const Json entry = Json::parse(text, nullptr, false);
                const Place at{index_label, r.lines + header_lines + 1};
                if (!entry.is_object() || !entry.contains("type")) throw IndexMismatch("not an index entry");
                type = as_string(entry["type"], at, "type");
                const Fields f(entry, at, "");
                e.at = f.integer("at"), e.end = f.integer("end"), e.line = f.integer("line");
                if (type == "step") {
                    step = read_step(entry, at, run, false);
                    e.grad_amax = f.number("grad_amax");
                }
            } catch (const Error& error) {  // the index's problem, not the record's
                throw IndexMismatch(error.what());
            }
        }
        if (e.at != before.end || e.end <= e.at || e.end > size || e.line != before.line + 1)
            throw IndexMismatch("line " + std::to_string(e.line) + " is not where the entry before it ends");
        const bool is_step = type == "step";
        last_type = type;
        last_step = is_step ? step.step : 0;
        if ((++checked == 1 || checked % 1024 == 0) && !record_line_is(record, e, type, is_step ? step.step : 0))
            throw IndexMismatch("the record's line " + std::to_string(e.line) + " is not the entry's");
        const RecordLine where{e.at, e.line - header_lines};
        if (is_step) {
            run.steps.push_back(std::move(step));
            run.grad_amax.push_back(e.grad_amax);
            forget_old_layers(run, first.layers_kept);
            if (r.first_step_line == 0) r.first_step_line = where.line;
            r.step_offsets.push_back(where);
        } else if (type == "hist" && !hists_read) {
            ++run.histogram_lines;
        } else if (r.error.empty()) {
            line_text.resize(static_cast<std::size_t>(e.end - e.at - 1));
            record.clear();
            record.seekg(e.at);
            record.read(line_text.data(), static_cast<std::streamsize>(line_text.size()));
            const Place at{label, where.line};
            try {
                if (!read_line(line_text, at, line_reader, first, run, unknown_types)) at.fail("", "not a JSON object");
            } catch (const std::exception& error) {  // the record's own problem, as read_range keeps it
                r.error = error.what();
                r.error_line = where.line;
                break;
            }
        }
        if (type == "hist") r.histogram_offsets.push_back({run.steps.empty() ? -1 : run.steps.back().step, where});
        r.lines = where.line;
        if (first.progress && e.end - reported >= static_cast<std::int64_t>(kProgressBytes))
            first.progress(static_cast<std::uint64_t>(reported = e.end));
    }
    if (checked > 1 && checked % 1024 != 0 && !record_line_is(record, e, last_type, last_step))
        throw IndexMismatch("the record's line " + std::to_string(e.line) + " is not the entry's");
    r.end = e.end;
    return r;
}

// "run.jsonl line 12: ..." with a range's line number made the record's.
std::string rebased(const std::string& message, const std::string& label, std::int64_t local, std::int64_t offset) {
    const std::string prefix = label + " line " + std::to_string(local);
    if (offset == 0 || message.rfind(prefix, 0) != 0) return message;
    return label + " line " + std::to_string(local + offset) + message.substr(prefix.size());
}

// Appends a range read after the lines before it (`offset` of them, the
// header's included): its first step must follow the last one so far, and
// its first problem is the record's (the ranges before it had none).
void merge_range(RangeRead& r, std::int64_t offset, const std::string& label, RecordedRun& run,
                 std::vector<std::string>& unknown_types) {
    RecordedRun& part = r.part;
    const bool step_first = r.first_step_line > 0 && (r.error.empty() || r.first_step_line < r.error_line);
    if (step_first && !run.steps.empty() && part.steps.front().step <= run.steps.back().step)
        Place{label, offset + r.first_step_line}.fail("step", std::to_string(part.steps.front().step) +
                                                                  " does not follow step " +
                                                                  std::to_string(run.steps.back().step));
    if (!r.error.empty()) throw Error(rebased(r.error, label, r.error_line, offset));
    const std::size_t number_at = label.size() + 6;  // after "<label> line "
    for (std::string& w : part.warnings) {
        const auto type_at = w.find(": lines of type \"");
        if (type_at != std::string::npos) {  // one warning per unknown type, as one pass over the record gives
            const std::string type = w.substr(type_at);
            if (std::find(unknown_types.begin(), unknown_types.end(), type) != unknown_types.end()) continue;
            unknown_types.push_back(type);
        }
        const std::int64_t local = std::stoll(w.substr(number_at, w.find_first_of(" :", number_at) - number_at));
        run.warnings.push_back(rebased(w, label, local, offset));
    }
    for (const RecordLine& l : r.step_offsets) run.step_offsets.push_back({l.offset, offset + l.line});
    for (auto [step, l] : r.histogram_offsets)  // a range's first lines may belong to the step before it
        run.histogram_offsets.push_back(
            {step >= 0 ? step : (run.steps.empty() ? 0 : run.steps.back().step), {l.offset, offset + l.line}});
    std::move(part.steps.begin(), part.steps.end(), std::back_inserter(run.steps));
    run.grad_amax.insert(run.grad_amax.end(), part.grad_amax.begin(), part.grad_amax.end());
    std::move(part.gradient_histograms.begin(), part.gradient_histograms.end(),
              std::back_inserter(run.gradient_histograms));
    std::move(part.nans.begin(), part.nans.end(), std::back_inserter(run.nans));
    std::move(part.samples.begin(), part.samples.end(), std::back_inserter(run.samples));
    run.histogram_lines += part.histogram_lines;
}

// Reads the first non-empty line, the header; the stream then stands after
// it. Returns its line number; `bytes` gets the bytes up to it.
std::int64_t read_header_line(std::istream& in, const std::string& label, RecordedRun& run, std::uint64_t& bytes) {
    Place at{label};
    std::string text;
    while (std::getline(in, text)) {
        ++at.line;
        bytes += text.size() + 1;
        if (text.empty() || text == "\r") continue;
        const Json line = Json::parse(text, nullptr, false);
        if (line.is_discarded()) at.fail("", "not a run record (not JSON Lines)");
        read_header(line, at, run);
        return at.line;
    }
    throw Error(label + ": empty, not a run record");
}

// Byte offsets that split [begin, size) into about `parts` ranges of whole lines.
std::vector<std::streamoff> range_starts(const std::string& path, std::streamoff begin, std::streamoff size,
                                         unsigned parts) {
    std::vector<std::streamoff> starts{begin};
    std::ifstream in(path, std::ios::binary);
    std::string skipped;
    for (unsigned k = 1; k < parts; ++k) {
        in.clear();
        in.seekg(begin + (size - begin) * k / parts);
        if (!std::getline(in, skipped)) break;  // the rest of the line the guess fell in
        const std::streamoff at = in.tellg();
        if (at < 0 || at >= size) break;
        if (at > starts.back()) starts.push_back(at);
    }
    return starts;
}

// Ranges read on threads of their own, each with its own stream; the
// calling thread reports progress meanwhile (a progress callback that
// throws, such as a cancelled dialog's, stops them all).
std::vector<RangeRead> read_ranges(const std::string& path, const std::vector<std::streamoff>& starts,
                                   std::streamoff size, const RunReadOptions& first, const RecordedRun& header,
                                   bool offsets, std::uint64_t header_bytes) {
    std::vector<RangeRead> reads(starts.size());
    std::atomic<std::uint64_t> bytes{header_bytes};
    std::atomic<bool> stop{false};
    std::atomic<std::size_t> done{0};
    std::vector<std::thread> threads;
    for (std::size_t k = 0; k < starts.size(); ++k)
        threads.emplace_back([&, k] {
            std::ifstream in(path, std::ios::binary);
            in.seekg(starts[k]);
            const std::streamoff end = k + 1 < starts.size() ? starts[k + 1] : -1;
            reads[k] = read_range(in, end, path, first, header, offsets,
                                  [&](std::uint64_t n) { bytes.fetch_add(n, std::memory_order_relaxed); }, &stop);
            done.fetch_add(1);
        });
    try {
        while (done.load() < threads.size()) {
            std::this_thread::sleep_for(std::chrono::milliseconds(20));
            if (first.progress) first.progress(std::min<std::uint64_t>(bytes.load(), static_cast<std::uint64_t>(size)));
        }
    } catch (...) {
        stop = true;
        for (std::thread& t : threads) t.join();
        throw;
    }
    for (std::thread& t : threads) t.join();
    return reads;
}

// Whether the layers of the newest steps are read on a second pass (see read_run).
bool reads_layers_twice(const RunReadOptions& options) {
    return options.layers && options.layers_kept != static_cast<std::size_t>(-1);
}

RunReadOptions first_pass(const RunReadOptions& options, bool second_pass) {
    RunReadOptions first = options;
    if (second_pass) first.layers = first.layer_histograms = false;
    return first;
}

RecordedRun finish(std::vector<RangeRead>& reads, std::int64_t header_lines, const std::string& label,
                   const RunReadOptions& options, bool second_pass, std::istream& in, RecordedRun run) {
    std::vector<std::string> unknown_types;
    std::int64_t offset = header_lines;
    for (RangeRead& r : reads) {
        merge_range(r, offset, label, run, unknown_types);
        offset += r.lines;
        if (r.cut_off) break;
    }
    if (second_pass) read_newest_layers(in, label, options, run);
    if (!options.line_offsets) {  // taken for the second pass only
        run.step_offsets = {};
        run.histogram_offsets = {};
    }
    return run;
}

}  // namespace

// With layers kept for the newest steps only, from a stream that can seek,
// the first pass reads every step's scalars and where the newest step and
// hist lines start, and a second pass reads their layers, so the layers of
// the steps before them are never built.
RecordedRun read_run(std::istream& in, const std::string& label, const RunReadOptions& options) {
    RecordedRun run;
    std::uint64_t bytes = 0, reported = 0;
    const std::int64_t header_lines = read_header_line(in, label, run, bytes);
    const bool second_pass = reads_layers_twice(options) && in.tellg() != -1;
    const auto progress = [&](std::uint64_t n) {
        bytes += n;
        if (options.progress && bytes - reported >= kProgressBytes) options.progress(reported = bytes);
    };
    std::vector<RangeRead> reads;
    reads.push_back(read_range(in, -1, label, first_pass(options, second_pass), run,
                               second_pass || options.line_offsets, progress, nullptr));
    run = finish(reads, header_lines, label, options, second_pass, in, std::move(run));
    if (options.progress) options.progress(bytes);
    return run;
}

// The lines the record's index covers, read through it (read_indexed); none
// when there is no index, or, with a warning, when it does not describe the record.
std::optional<RangeRead> read_through_index(const std::string& path, std::istream& record, std::int64_t header_lines,
                                            std::uint64_t header_bytes, std::streamoff size,
                                            const RunReadOptions& first, RecordedRun& run) {
    std::ifstream index(record_index_path(path), std::ios::binary);
    if (!index) return std::nullopt;
    // Only a mismatch sets the index aside: anything else (a cancelled
    // progress dialog's exception, say) goes on to the caller.
    try {
        std::string text;
        const Json head = std::getline(index, text) ? Json::parse(text, nullptr, false) : Json();
        const auto field = [&](const char* key) { return head.is_object() && head.contains(key) ? head[key] : Json(); };
        if (field("type") != "index" || field("version") != kRecordIndexVersion)
            throw IndexMismatch("not an index of version " + std::to_string(kRecordIndexVersion));
        if (field("header_bytes") != header_bytes) throw IndexMismatch("it is of a record with another header");
        return read_indexed(index, record, header_lines, header_bytes, size, path, first, run);
    } catch (const IndexMismatch& e) {  // a derived file: never the record's fault
        run.warnings.push_back(record_index_path(path) + " does not describe this record (" + e.what() +
                               "): the record was read whole");
        return std::nullopt;
    }
}

// A file is read through its index where it has one, and the rest (all of
// it without one) in ranges on threads (RunReadOptions::threads), merged in
// order, so the result and every message are those of one pass over it.
RecordedRun read_run_file(const std::string& path, const RunReadOptions& options) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw Error(path + ": cannot be opened for reading");
    RecordedRun run;
    std::uint64_t header_bytes = 0;
    const std::int64_t header_lines = read_header_line(in, path, run, header_bytes);
    std::streamoff rest = in.tellg();
    if (rest < 0) return run;  // the header was the last line
    in.seekg(0, std::ios::end);
    const std::streamoff size = in.tellg();
    const bool second_pass = reads_layers_twice(options);
    const RunReadOptions first = first_pass(options, second_pass);
    std::vector<RangeRead> reads;
    if (options.use_index)
        if (std::optional<RangeRead> indexed =
                read_through_index(path, in, header_lines, header_bytes, size, first, run)) {
            rest = indexed->end;
            reads.push_back(std::move(*indexed));
        }
    if (rest < size) {
        const unsigned threads = options.threads ? options.threads : std::max(1u, std::thread::hardware_concurrency());
        const auto per_thread = static_cast<std::streamoff>(std::max<std::uint64_t>(options.bytes_per_thread, 1));
        const auto parts = static_cast<unsigned>(std::clamp<std::streamoff>((size - rest) / per_thread, 1, threads));
        std::vector<RangeRead> tail = read_ranges(path, range_starts(path, rest, size, parts), size, first, run,
                                                  second_pass || options.line_offsets, static_cast<std::uint64_t>(rest));
        std::move(tail.begin(), tail.end(), std::back_inserter(reads));
    }
    run = finish(reads, header_lines, path, options, second_pass, in, std::move(run));
    if (options.progress) options.progress(static_cast<std::uint64_t>(size));
    return run;
}

StepRecord read_step_again(const std::string& path, const RecordedRun& run, std::size_t index,
                           std::ptrdiff_t histogram) {
    std::ifstream in(path, std::ios::binary);
    if (!in || index >= run.step_offsets.size()) throw Error(path + ": cannot be opened for reading");
    std::string text;
    const auto line_at = [&](const RecordLine& where) -> Json {
        in.clear();
        in.seekg(where.offset);
        Json line = std::getline(in, text) ? Json::parse(text, nullptr, false) : Json(nullptr);
        if (line.is_discarded() || !line.is_object())
            Place{path, where.line}.fail("", "not the record line it was when the file was opened (has it changed?)");
        return line;
    };
    StepRecord r = run.steps[index];
    const RecordLine& step_at = run.step_offsets[index];
    const Json step = line_at(step_at);
    if (const auto layers = step.find("layers"); layers != step.end())
        read_layers(*layers, Place{path, step_at.line}, run, r);
    if (histogram >= 0) {
        const RecordLine& hist_at = run.histogram_offsets[static_cast<std::size_t>(histogram)].second;
        read_layer_histograms(line_at(hist_at), Place{path, hist_at.line}, run).attach_to(r);
    }
    return r;
}

}  // namespace plab
