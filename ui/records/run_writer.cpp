#include "ui/records/run_writer.h"

#include "engine/train/preset_io.h"

#include <ostream>

#include "engine/common/number_text.h"
#include "engine/model/op_observer.h"
#include "engine/model/telemetry_layers.h"
#include "ui/records/json_line.h"
#include "ui/records/record_index.h"
#include "ui/present/step_fields.h"

namespace plab {

namespace {

constexpr std::size_t kFlushBytes = 1 << 16;

// Step fields into a JsonLine: objects nest, layers become an array of
// objects that start with their "name".
class JsonSink {
public:
    explicit JsonSink(JsonLine& j) : j_(j) {}
    void number(std::string_view k, float v) { j_.number(k, v); }
    void integer(std::string_view k, std::int64_t v) { j_.integer(k, v); }
    void boolean(std::string_view k, bool v) { j_.boolean(k, v); }
    void missing(std::string_view) {}  // absent keys are left out of JSON
    void begin(std::string_view k) { j_.begin_object(k); }
    void end() { j_.end_object(); }
    void begin_list(std::string_view k) { j_.begin_array(k); }
    void end_list() { j_.end_array(); }
    void begin_item(std::string_view name) { j_.begin_object().string("name", name); }
    void end_item() { j_.end_object(); }

private:
    JsonLine& j_;
};

// Trailing zero bins are dropped and leading ones counted in "first_bin", so
// a histogram line holds only the occupied range.
void write_histogram(JsonLine& j, std::string_view key, const Log2Histogram& h) {
    j.begin_object(key).integer("zeros", h.zeros).integer("nans", h.nans).integer("pos_infs", h.pos_infs).integer(
        "neg_infs", h.neg_infs);
    int first = 0, last = Log2Histogram::kBins;
    while (first < last && h.bins[static_cast<std::size_t>(first)] == 0) ++first;
    while (last > first && h.bins[static_cast<std::size_t>(last - 1)] == 0) --last;
    j.integer("first_bin", first).begin_array("bins");
    for (int i = first; i < last; ++i) j.integer({}, h.bins[static_cast<std::size_t>(i)]);
    j.end_array().end_object();
}

// A layer's six histograms, under the names of its six tensors.
void write_layer_histograms(JsonLine& j, const LayerHistograms& h) {
    write_histogram(j, "weight", h.weight);
    write_histogram(j, "grad", h.grad);
    write_histogram(j, "grad_unscaled", h.grad_unscaled);
    write_histogram(j, "act", h.act);
    write_histogram(j, "act_grad", h.act_grad);
    write_histogram(j, "act_grad_unscaled", h.act_grad_unscaled);
}

// JsonSink for the index: a step's fields without its layers.
class ScalarsSink {
public:
    explicit ScalarsSink(JsonLine& j) : sink_(j) {}
    void number(std::string_view k, float v) {
        if (!depth_) sink_.number(k, v);
    }
    void integer(std::string_view k, std::int64_t v) {
        if (!depth_) sink_.integer(k, v);
    }
    void boolean(std::string_view k, bool v) {
        if (!depth_) sink_.boolean(k, v);
    }
    void missing(std::string_view) {}
    void begin(std::string_view) { ++depth_; }  // objects only occur inside the layers
    void end() { --depth_; }
    void begin_list(std::string_view) { ++depth_; }
    void end_list() { --depth_; }
    void begin_item(std::string_view) {}
    void end_item() {}

private:
    JsonSink sink_;
    int depth_ = 0;
};

// With an index stream, each line also gets its index entry (record_index.h);
// the record's bytes are written before the index's, so an index never names
// a line the record does not hold yet.
class JsonlWriter final : public RunWriter {
public:
    JsonlWriter(std::ostream& out, std::ostream* index) : out_(out), index_(index) {}
    ~JsonlWriter() override { flush(); }
    void header(const RunHeader& h) override {
        layer_names_ = h.layer_names;
        twin_ = h.twin;
        {
            JsonLine j(buffer_);
            j.string("type", "run").integer("version", 1).string("backend", h.backend).raw("config", h.config_json);
            j.begin_array("layers");
            for (std::size_t i = 0; i < h.layer_names.size(); ++i)
                j.begin_object().string("name", h.layer_names[i]).string("shape", h.layer_shapes[i]).end_object();
            j.end_array();
            j.begin_object("histogram").integer("low_log2", Log2Histogram::kLowExponent)
                .integer("bins_per_binade", Log2Histogram::kBinsPerBinade).integer("bins", Log2Histogram::kBins).end_object();
        }
        ++lines_;
        if (index_)
            JsonLine(index_buffer_).string("type", "index").integer("version", kRecordIndexVersion)
                .integer("header_bytes", static_cast<std::int64_t>(written_ + buffer_.size()));
    }
    void step(const StepRecord& r, std::optional<double> micros) override {
        write_line("step", [&](JsonLine& j) {
            JsonSink sink(j);
            visit_step(r, layer_names_, twin_, sink);
            if (micros) j.number("time_us", *micros);
        }, &r);
    }
    void histograms(std::int64_t step, const std::vector<LayerHistograms>& layers, const TwinView* twin) override {
        write_line("hist", [&](JsonLine& j) {
            j.integer("step", step).begin_array("layers");
            for (std::size_t i = 0; i < layers.size(); ++i) {
                j.begin_object().string("name", layer_names_[i]);
                write_layer_histograms(j, layers[i]);
                if (twin && i < twin->layers.size()) {
                    j.begin_object("twin");
                    write_layer_histograms(j, twin->histograms[i]);
                    j.begin_object("stats");
                    JsonSink sink(j);
                    visit_layer(twin->layers[i], false, sink);
                    j.end_object().end_object();
                }
                j.end_object();
            }
            j.end_array();
        });
    }
    // The twin's text only when the header says there is a twin, as its step fields are.
    void samples(const TextSamples& s) override {
        write_line("samples", [&](JsonLine& j) {
            j.integer("step", s.step).begin_array("samples");
            for (const TextSample& t : s.samples) {
                j.begin_object().string("prompt", t.prompt);
                if (!t.expected.empty()) j.string("expected", t.expected);
                j.string("model", t.model);
                if (twin_) j.string("twin", t.twin);
                j.end_object();
            }
            j.end_array();
        });
    }
    void nan(const NanReport& r) override {
        write_line("nan", [&](JsonLine& j) {
            j.integer("step", r.step).string("phase", phase_name(r.phase)).string("layer", r.layer).string("op", r.op)
                .string("format", format_name(r.format)).integer("nans", r.nans).integer("infs", r.infs)
                .number("input_amax", r.input_amax).number("scale", r.loss_scale).string("diagnosis", r.diagnosis);
        });
    }
    void edit(std::int64_t after_step, const std::string& assignment) override {
        write_line("edit", [&](JsonLine& j) { j.integer("step", after_step).string("assignment", assignment); });
    }
    void flush() override {
        written_ += buffer_.size();
        out_ << buffer_;
        out_.flush();
        buffer_.clear();
        if (!index_) return;
        *index_ << index_buffer_;
        index_->flush();
        index_buffer_.clear();
    }

private:
    // One record line of `type`, its fields written by `fill`, and its index entry.
    template <typename Fill>
    void write_line(std::string_view type, Fill&& fill, const StepRecord* step = nullptr) {
        const std::uint64_t at = written_ + buffer_.size();
        {
            JsonLine j(buffer_);
            j.string("type", type);
            fill(j);
        }
        ++lines_;
        if (index_) index_entry(type, at, step);
        if (buffer_.size() >= kFlushBytes) flush();
    }
    void index_entry(std::string_view type, std::uint64_t at, const StepRecord* step) {
        JsonLine j(index_buffer_);
        j.string("type", type).integer("at", static_cast<std::int64_t>(at))
            .integer("end", static_cast<std::int64_t>(written_ + buffer_.size())).integer("line", lines_);
        if (!step) return;
        j.number("grad_amax", unscaled_gradient_amax(*step));
        ScalarsSink sink(j);
        visit_step(*step, layer_names_, twin_, sink);
    }

    std::ostream& out_;
    std::ostream* index_;
    std::string buffer_, index_buffer_;
    std::uint64_t written_ = 0;  // bytes of the record handed to out_
    std::int64_t lines_ = 0;
    std::vector<std::string> layer_names_;
    bool twin_ = false;
};

// Step fields as one CSV row; the first row's walk also names the columns
// ("fc1.grad.fp16.underflow"). Absent values are empty cells.
class CsvSink {
public:
    CsvSink(std::string& row, std::string* header) : row_(row), header_(header) {}
    void number(std::string_view k, float v) { cell(k, shortest_text(v)); }
    void integer(std::string_view k, std::int64_t v) { cell(k, std::to_string(v)); }
    void boolean(std::string_view k, bool v) { cell(k, v ? "1" : "0"); }
    void missing(std::string_view k) { cell(k, ""); }
    void begin(std::string_view k) { push(k); }
    void end() { pop(); }
    void begin_list(std::string_view) {}
    void end_list() {}
    void begin_item(std::string_view name) { push(name); }
    void end_item() { pop(); }

private:
    void push(std::string_view k) { prefix_.push_back(std::string(k)); }
    void pop() { prefix_.pop_back(); }
    void cell(std::string_view k, const std::string& value) {
        if (!first_) row_ += ',';
        row_ += value;
        if (header_) {
            if (!first_) *header_ += ',';
            for (const std::string& p : prefix_) *header_ += p + '.';
            *header_ += k;
        }
        first_ = false;
    }
    std::string& row_;
    std::string* header_;
    std::vector<std::string> prefix_;
    bool first_ = true;
};

class CsvWriter final : public RunWriter {
public:
    explicit CsvWriter(std::ostream& out) : out_(out) {}
    ~CsvWriter() override { flush(); }
    void header(const RunHeader& h) override {
        layer_names_ = h.layer_names;
        twin_ = h.twin;
    }
    void step(const StepRecord& r, std::optional<double> micros) override {
        std::string row, header;
        CsvSink sink(row, wrote_header_ ? nullptr : &header);
        visit_step(r, layer_names_, twin_, sink);
        if (micros) sink.number("time_us", static_cast<float>(*micros));
        if (!wrote_header_) buffer_ += header + '\n';
        wrote_header_ = true;
        buffer_ += row + '\n';
        if (buffer_.size() >= kFlushBytes) flush();
    }
    void histograms(std::int64_t, const std::vector<LayerHistograms>&, const TwinView*) override {}  // JSON Lines only
    void samples(const TextSamples&) override {}  // JSON Lines only
    void nan(const NanReport&) override {}  // reported on stderr; CSV rows have no room for it
    void edit(std::int64_t, const std::string&) override {}  // JSON Lines only
    void flush() override {
        out_ << buffer_;
        out_.flush();
        buffer_.clear();
    }

private:
    std::ostream& out_;
    std::string buffer_;
    std::vector<std::string> layer_names_;
    bool twin_ = false;
    bool wrote_header_ = false;
};

}  // namespace

std::unique_ptr<RunWriter> make_run_writer(RecordFormat format, std::ostream& out, std::ostream* index) {
    if (format == RecordFormat::csv) return std::make_unique<CsvWriter>(out);
    return std::make_unique<JsonlWriter>(out, index);
}

void write_step_extras(RunWriter& writer, const StepRecord& record) {
    if (record.histograms) writer.histograms(record.step, *record.histograms, record.twin_view.get());
    if (record.samples) writer.samples(*record.samples);
}

RunHeader make_run_header(const Trainer& trainer, const Backend& backend) {
    RunHeader h;
    h.config_json = run_config_to_json(trainer.config(), false);
    const Model& model = trainer.network();
    h.layer_names = telemetry_layer_names(model);
    for (int i = 0; i < telemetry_layer_count(model); ++i)
        h.layer_shapes.push_back(shape_text(telemetry_layer_weight(model, i).value.shape()));
    h.backend = backend.name();
    h.twin = trainer.twin_network() != nullptr;
    return h;
}

}  // namespace plab
