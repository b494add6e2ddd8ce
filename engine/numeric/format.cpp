#include "engine/numeric/format.h"

namespace plab {

namespace {
struct Names {
    std::string_view name, display, description;
};

Names names_of(FormatId f) {
    switch (f) {
        case FormatId::fp32: return {"fp32", "FP32", "IEEE binary32"};
        case FormatId::tf32: return {"tf32", "TF32", "TensorFloat-32 (FP32 range, 10-bit mantissa)"};
        case FormatId::fp16: return {"fp16", "FP16", "IEEE binary16"};
        case FormatId::bf16: return {"bf16", "BF16", "bfloat16 (FP32 range, 7-bit mantissa)"};
        case FormatId::e4m3: return {"e4m3", "E4M3", "FP8 E4M3FN (no infinity)"};
        case FormatId::e5m2: return {"e5m2", "E5M2", "FP8 E5M2"};
    }
    return {"?", "?", "?"};
}
}  // namespace

std::string_view format_name(FormatId f) { return names_of(f).name; }
std::string_view format_display_name(FormatId f) { return names_of(f).display; }
std::string_view format_description(FormatId f) { return names_of(f).description; }

std::optional<FormatId> parse_format(std::string_view name) {
    for (FormatId f : kAllFormats)
        if (format_name(f) == name) return f;
    return std::nullopt;
}

std::string format_choices() {
    std::string out;
    for (FormatId f : kAllFormats) {
        if (!out.empty()) out += '|';
        out += format_name(f);
    }
    return out;
}

std::string_view overflow_name(Overflow o) { return o == Overflow::saturate ? "saturate" : "nan"; }

std::optional<Overflow> parse_overflow(std::string_view name) {
    if (name == "saturate") return Overflow::saturate;
    if (name == "nan") return Overflow::nan;
    return std::nullopt;
}

}  // namespace plab
