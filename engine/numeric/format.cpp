#include "engine/numeric/format.h"

#include "engine/common/enum_names.h"

namespace plab {

namespace {
struct Names {
    std::string_view display, description;
};

Names names_of(FormatId f) {
    switch (f) {
        case FormatId::fp32: return {"FP32", "IEEE binary32"};
        case FormatId::tf32: return {"TF32", "TensorFloat-32 (FP32 range, 10-bit mantissa)"};
        case FormatId::fp16: return {"FP16", "IEEE binary16"};
        case FormatId::bf16: return {"BF16", "bfloat16 (FP32 range, 7-bit mantissa)"};
        case FormatId::e4m3: return {"E4M3", "FP8 E4M3FN (no infinity)"};
        case FormatId::e5m2: return {"E5M2", "FP8 E5M2"};
    }
    return {"?", "?"};
}
}  // namespace

constexpr EnumNames<FormatId, kFormatCount> kFormatNames({{{FormatId::fp32, "fp32"},
                                                             {FormatId::tf32, "tf32"},
                                                             {FormatId::fp16, "fp16"},
                                                             {FormatId::bf16, "bf16"},
                                                             {FormatId::e4m3, "e4m3"},
                                                             {FormatId::e5m2, "e5m2"}}});
constexpr EnumNames<Overflow, 2> kOverflowNames({{{Overflow::saturate, "saturate"}, {Overflow::nan, "nan"}}});

std::string_view format_name(FormatId f) { return kFormatNames.name(f); }
std::string_view format_display_name(FormatId f) { return names_of(f).display; }
std::string_view format_description(FormatId f) { return names_of(f).description; }

std::optional<FormatId> parse_format(std::string_view name) { return kFormatNames.parse(name); }
std::string format_choices() { return kFormatNames.choices(); }
std::string_view overflow_name(Overflow o) { return kOverflowNames.name(o); }
std::optional<Overflow> parse_overflow(std::string_view name) { return kOverflowNames.parse(name); }

}  // namespace plab
