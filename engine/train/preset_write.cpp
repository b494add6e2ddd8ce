// run_config_to_json: the resolved preset, written field by field from the
// schema in preset_fields.h. Hand-written rather than through nlohmann::json,
// whose number output would print a float's double value (1e-8f as
// 9.99999993922529e-09); here floats are their shortest round-trip text.
#include <cmath>

#include "engine/common/field_check.h"
#include "engine/train/preset_fields.h"
#include "engine/train/preset_io.h"
#include "engine/train/preset_json.h"

namespace plab {

namespace {

using namespace preset;

class JsonWriter {
public:
    explicit JsonWriter(bool pretty) : pretty_(pretty) { out_ += '{'; }

    template <typename Field>
    void operator()(std::string_view section, std::string_view key, Field&& field) {
        enter(section);
        member(key, section.empty() ? 1 : 2);
        write(field);
    }

    std::string finish() {
        enter("");
        newline(0);
        out_ += '}';
        if (pretty_) out_ += '\n';
        return std::move(out_);
    }

private:
    // Closes the open section and opens `section` ("" = back at the top level).
    void enter(std::string_view section) {
        if (section == section_) return;
        if (!section_.empty()) {
            newline(1);
            out_ += '}';
        }
        section_ = section;
        if (section.empty()) return;
        member(section, 1);
        out_ += '{';
        first_in_section_ = true;
    }

    void member(std::string_view key, int depth) {
        bool& first = depth == 1 ? first_at_top_ : first_in_section_;
        if (!first) out_ += ',';
        first = false;
        newline(depth);
        out_ += json_quote(key);
        out_ += pretty_ ? ": " : ":";
    }

    void newline(int depth) {
        if (!pretty_) return;
        out_ += '\n';
        out_.append(static_cast<std::size_t>(2 * depth), ' ');
    }

    std::string_view separator() const { return pretty_ ? ", " : ","; }

    // Non-finite values cannot come from a file; should a program build one,
    // it is written as a string, which reads back as an error naming the field.
    template <typename T>
    void number(T x) {
        if (std::isfinite(x))
            out_ += shortest_number(x);
        else
            out_ += json_quote(std::isnan(x) ? "nan" : x > 0 ? "inf" : "-inf");
    }

    void write(const std::string& s) { out_ += json_quote(s); }
    void write(std::uint64_t x) { out_ += std::to_string(x); }
    void write(bool b) { out_ += b ? "true" : "false"; }
    void write(float x) { number(x); }
    void write(double x) { number(x); }
    void write(IntField f) { out_ += std::to_string(f.value); }

    void write(const std::vector<int>& values) {
        out_ += '[';
        for (std::size_t i = 0; i < values.size(); ++i) {
            if (i > 0) out_ += separator();
            out_ += std::to_string(values[i]);
        }
        out_ += ']';
    }

    template <typename E>
    void write(EnumField<E> f) {
        out_ += json_quote(f.name(f.value));
    }

    template <typename E>
    void write(EnumListField<E> f) {
        out_ += '[';
        for (std::size_t i = 0; i < f.values.size(); ++i) {
            if (i > 0) out_ += separator();
            out_ += json_quote(f.name(f.values[i]));
        }
        out_ += ']';
    }

    void write(LayerOverridesField f) {
        out_ += '{';
        bool first = true;
        for (const auto& [layer, format] : f.value) {
            if (!first) out_ += separator();
            first = false;
            out_ += json_quote(layer) + (pretty_ ? ": " : ":") + json_quote(format_name(format));
        }
        out_ += '}';
    }

    bool pretty_;
    std::string out_;
    std::string_view section_;
    bool first_at_top_ = true;
    bool first_in_section_ = true;
};

}  // namespace

std::string run_config_to_json(const RunConfig& config, bool pretty) {
    RunConfig copy = config;  // the schema hands out mutable references
    JsonWriter writer(pretty);
    visit_fields(copy, writer);
    return writer.finish();
}

}  // namespace plab
