// plab bits: how a value is stored in each format, bit by bit.
#include <CLI/CLI.hpp>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/numeric/cast_report.h"
#include "engine/numeric/scalar_cast.h"
#include "engine/numeric/value_text.h"
#include "ui/cli/commands.h"
#include "ui/records/json_line.h"
#include "ui/present/bit_layout.h"
#include "engine/common/number_text.h"

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

void write_json(const Input& input, const CastReport& r, std::string& out) {
    const BitFields& b = r.fields;
    const bool finite_class = b.value_class != ValueClass::inf && b.value_class != ValueClass::nan;
    JsonLine j(out);
    j.string("input", input.text)
        .string("fp32_bits", hex_code(FormatId::fp32, float_bits(input.value)))
        .string("format", format_name(r.format))
        .string("bits", hex_code(r.format, b.code))
        .integer("sign", b.sign ? 1 : 0)
        .integer("exponent", b.exponent_field);
    if (finite_class)
        j.integer("exponent_unbiased", b.exponent);
    else
        j.null("exponent_unbiased");
    j.integer("mantissa", b.mantissa_field)
        .string("class", class_name(b.value_class))
        .number("value", static_cast<double>(r.value))
        .number("abs_error", r.abs_error)
        .number("rel_error", r.rel_error)
        .number("ulp", r.ulp);
    if (r.next_down) j.number("next_down", static_cast<double>(*r.next_down)); else j.null("next_down");
    if (r.next_up) j.number("next_up", static_cast<double>(*r.next_up)); else j.null("next_up");
    j.boolean("overflow", r.overflowed).boolean("flushed_to_zero", r.flushed_to_zero);
    if (format_params(r.format).is_fp8) j.string("fp8_overflow", overflow_name(r.overflow_mode));
}

// Appends text, then spaces up to `width` columns.
void append_padded(std::string& out, std::string_view text, std::size_t width) {
    out += text;
    if (text.size() < width) out.append(width - text.size(), ' ');
}

// "0 01111 0000000000": fields apart, each in its colour; padded to `width` columns.
void append_bits(std::string& out, const BitLayout& l, bool color, std::size_t width) {
    std::string field;
    std::size_t visible = 0;
    for (std::size_t i = 0; i < l.cells.size(); ++i) {
        field += l.cells[i].set ? '1' : '0';
        const bool field_ends = i + 1 == l.cells.size() || l.cells[i + 1].role != l.cells[i].role;
        if (!field_ends) continue;
        if (visible > 0) {
            out += ' ';
            ++visible;
        }
        out += paint(field, l.cells[i].role, color);
        visible += field.size();
        field.clear();
    }
    if (visible < width) out.append(width - visible, ' ');
}

void write_text_header(const Input& input, std::string& out, bool color) {
    out += input.text;
    out += dim("  as FP32 " + hex_code(FormatId::fp32, float_bits(input.value)) + " = " + shortest_text(input.value),
               color);
    out += '\n';
}

void write_text_row(const CastReport& r, std::string& out, bool color) {
    const BitLayout l = make_bit_layout(r);
    out += "  ";
    append_padded(out, l.format_label, 5);
    append_bits(out, l, color, 35);
    append_padded(out, l.hex, 12);
    append_padded(out, l.value, 16);
    append_padded(out, l.value_class, 10);
    out += dim("err ", color);
    append_padded(out, significant_text(r.abs_error, 4), 11);
    out += dim("rel ", color);
    append_padded(out, significant_text(r.rel_error, 4), 11);
    out += dim("ulp ", color);
    out += l.ulp;
    if (!l.note.empty()) out += "  " + l.note;
    out += '\n';
}

}  // namespace

void run_bits(const BitsOptions& options, std::istream& in, std::ostream& out, bool color) {
    const std::vector<FormatId> formats = selected_formats(options.format);
    const auto mode = parse_overflow(options.fp8_overflow);
    if (!mode) throw Error("--fp8-overflow: '" + options.fp8_overflow + "' is not a mode; allowed: saturate|nan");
    const std::vector<Input> inputs = read_inputs(options.values, in);

    // Rows go through a buffer written out in large pieces.
    std::string buffer;
    for (const Input& input : inputs) {
        if (!options.json) write_text_header(input, buffer, color);
        for (FormatId f : formats) {
            const CastReport r = describe_cast(f, input.value, *mode);
            if (options.json)
                write_json(input, r, buffer);
            else
                write_text_row(r, buffer, color);
        }
        if (buffer.size() > (1u << 16)) {
            out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
            buffer.clear();
        }
    }
    out.write(buffer.data(), static_cast<std::streamsize>(buffer.size()));
}

namespace {

// "-inf", "-nan", "-1.5", "-.5": a value, where CLI11 would see an option.
bool negative_value(const std::string& t) {
    if (t.size() < 2 || t[0] != '-' || t[1] == '-') return false;
    if (std::isdigit(static_cast<unsigned char>(t[1])) || t[1] == '.') return true;
    std::string rest;
    for (char c : t.substr(1)) rest += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return rest == "inf" || rest == "infinity" || rest == "nan";
}

}  // namespace

std::vector<std::string> bits_arguments(const std::vector<std::string>& args) {
    static const std::vector<std::string> with_argument = {"--format", "-f", "--fp8-overflow", "--color"};
    std::vector<std::string> options, values;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& t = args[i];
        if (t == "--") {
            values.insert(values.end(), args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
            break;
        }
        const bool takes_argument = std::find(with_argument.begin(), with_argument.end(), t) != with_argument.end();
        if (takes_argument && i + 1 < args.size()) {
            options.push_back(t);
            options.push_back(args[++i]);
        } else if (t.size() > 1 && t[0] == '-' && !negative_value(t)) {
            options.push_back(t);  // --help, --format=fp16, an unknown option CLI11 will name
        } else {
            values.push_back(t);  // a value, "-" (standard input) among them
        }
    }
    if (!values.empty()) options.push_back("--");
    options.insert(options.end(), values.begin(), values.end());
    return options;
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
