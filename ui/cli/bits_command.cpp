// plab bits: how a value is stored in each format, bit by bit.
#include <CLI/CLI.hpp>

#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/numeric/cast_report.h"
#include "engine/numeric/scalar_cast.h"
#include "engine/numeric/value_text.h"
#include "ui/cli/commands.h"
#include "ui/present/bit_layout.h"
#include "ui/present/number_text.h"

namespace plab {

namespace {

struct Input {
    std::string text;  // as the user wrote it
    float value;
};

std::vector<Input> read_inputs(const std::vector<std::string>& args, std::istream& in) {
    std::vector<Input> inputs;
    for (const std::string& arg : args) {
        if (arg != "-") {
            inputs.push_back({arg, parse_fp32_value(arg)});
            continue;
        }
        std::string line;
        for (long number = 1; std::getline(in, line); ++number) {
            while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
            const auto start = line.find_first_not_of(" \t");
            if (start == std::string::npos) continue;  // blank line
            line.erase(0, start);
            try {
                inputs.push_back({line, parse_fp32_value(line)});
            } catch (const Error& e) {
                throw Error("standard input line " + std::to_string(number) + ": " + e.what());
            }
        }
    }
    if (inputs.empty()) throw Error("bits: no values given; pass VALUE arguments or - to read them from standard input");
    return inputs;
}

std::vector<FormatId> selected_formats(const std::string& name) {
    if (name == "all") return {kAllFormats.begin(), kAllFormats.end()};
    if (const auto f = parse_format(name)) return {*f};
    throw Error("--format: '" + name + "' is not a format; allowed: " + format_choices() + "|all");
}

// JSON has no Inf or NaN: those become the strings "inf", "-inf", "nan".
nlohmann::ordered_json json_number(double x) {
    if (std::isfinite(x)) return x;
    return shortest_text(x);
}

nlohmann::ordered_json json_optional(const std::optional<float>& x) {
    return x ? json_number(*x) : nlohmann::ordered_json(nullptr);
}

void write_json(const Input& input, const CastReport& r, std::ostream& out) {
    const BitFields& b = r.fields;
    nlohmann::ordered_json j;
    j["input"] = input.text;
    j["fp32_bits"] = hex_code(FormatId::fp32, float_bits(input.value));
    j["format"] = format_name(r.format);
    j["bits"] = hex_code(r.format, b.code);
    j["sign"] = b.sign ? 1 : 0;
    j["exponent"] = b.exponent_field;
    j["exponent_unbiased"] = b.value_class == ValueClass::inf || b.value_class == ValueClass::nan
                                 ? nlohmann::ordered_json(nullptr)
                                 : nlohmann::ordered_json(b.exponent);
    j["mantissa"] = b.mantissa_field;
    j["class"] = class_name(b.value_class);
    j["value"] = json_number(r.value);
    j["abs_error"] = json_number(r.abs_error);
    j["rel_error"] = json_number(r.rel_error);
    j["ulp"] = json_number(r.ulp);
    j["next_down"] = json_optional(r.next_down);
    j["next_up"] = json_optional(r.next_up);
    j["overflow"] = r.overflowed;
    j["flushed_to_zero"] = r.flushed_to_zero;
    if (format_params(r.format).is_fp8) j["fp8_overflow"] = overflow_name(r.overflow_mode);
    out << j.dump() << '\n';
}

std::string pad(std::string s, std::size_t width) {
    if (s.size() < width) s.append(width - s.size(), ' ');
    return s;
}

// "0 01111 0000000000": fields apart, each in its colour; padded to `width` columns.
std::string draw_bits(const BitLayout& l, bool color, std::size_t width) {
    std::string out, field;
    std::size_t visible = 0;
    for (std::size_t i = 0; i < l.cells.size(); ++i) {
        field += l.cells[i].set ? '1' : '0';
        const bool field_ends = i + 1 == l.cells.size() || l.cells[i + 1].role != l.cells[i].role;
        if (!field_ends) continue;
        if (!out.empty()) {
            out += ' ';
            ++visible;
        }
        out += paint(field, l.cells[i].role, color);
        visible += field.size();
        field.clear();
    }
    if (visible < width) out.append(width - visible, ' ');
    return out;
}

void write_text_header(const Input& input, std::ostream& out, bool color) {
    out << input.text << dim("  as FP32 " + hex_code(FormatId::fp32, float_bits(input.value)) + " = " +
                                 shortest_text(input.value),
                             color)
        << '\n';
}

void write_text_row(const CastReport& r, std::ostream& out, bool color) {
    const BitLayout l = make_bit_layout(r);
    out << "  " << pad(l.format_label, 5) << draw_bits(l, color, 35) << pad(l.hex, 12) << pad(l.value, 16)
        << pad(l.value_class, 10) << dim("err ", color) << pad(significant_text(r.abs_error, 4), 11)
        << dim("rel ", color) << pad(significant_text(r.rel_error, 4), 11) << dim("ulp ", color) << l.ulp;
    if (!l.note.empty()) out << "  " << l.note;
    out << '\n';
}

}  // namespace

void run_bits(const BitsOptions& options, std::istream& in, std::ostream& out, bool color) {
    const std::vector<FormatId> formats = selected_formats(options.format);
    const auto mode = parse_overflow(options.fp8_overflow);
    if (!mode) throw Error("--fp8-overflow: '" + options.fp8_overflow + "' is not a mode; allowed: saturate|nan");
    const std::vector<Input> inputs = read_inputs(options.values, in);

    for (const Input& input : inputs) {
        if (!options.json) write_text_header(input, out, color);
        for (FormatId f : formats) {
            const CastReport r = describe_cast(f, input.value, *mode);
            if (options.json)
                write_json(input, r, out);
            else
                write_text_row(r, out, color);
        }
    }
}

void add_bits_command(CLI::App& app) {
    auto options = std::make_shared<BitsOptions>();
    CLI::App* cmd = app.add_subcommand("bits", "Show how values are stored in each number format, bit by bit");
    cmd->footer(
        "Each VALUE is first taken as FP32 (as a tensor holds it), then cast to each format with round to\n"
        "nearest, ties to even. VALUE is " +
        fp32_value_syntax() +
        ".\n"
        "Use - to read values from standard input, one per line.\n\n"
        "Examples:\n"
        "  plab bits 0.1                      all six formats\n"
        "  plab bits 65520 --format fp16      rounds up to +inf: past FP16's largest value, 65504\n"
        "  plab bits 1e-8 --format fp16       flushes to zero: below half of FP16's smallest subnormal\n"
        "  plab bits 500 --format e4m3 --fp8-overflow nan\n"
        "  seq 1 100000 | plab bits - --format bf16 --json > bf16.jsonl");
    cmd->add_option("VALUE", options->values, "Values to show (- reads standard input)")->required();
    cmd->add_option("--format,-f", options->format, "Format to show: " + format_choices() + "|all")
        ->capture_default_str();
    cmd->add_option("--fp8-overflow", options->fp8_overflow,
                    "FP8 overflow: saturate (clamp to +-max) or nan (E4M3 -> NaN, E5M2 -> Inf)")
        ->capture_default_str();
    cmd->add_flag("--json", options->json,
                  "Write JSON Lines: one object per (value, format) with input, format, bits, sign, exponent, "
                  "mantissa, class, value, abs_error, rel_error, ulp, next_down, next_up");
    cmd->add_option("--color", options->color, "Colour the bit fields: auto (on a terminal), always, never")
        ->transform(CLI::CheckedTransformer(
            std::map<std::string, ColorMode>{
                {"auto", ColorMode::auto_detect}, {"always", ColorMode::always}, {"never", ColorMode::never}},
            CLI::ignore_case));
    cmd->callback([options] {
        std::ios::sync_with_stdio(false);
        run_bits(*options, std::cin, std::cout, !options->json && use_color(options->color, 1));
    });
}

}  // namespace plab
