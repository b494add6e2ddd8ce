#include "ui/present/bit_layout.h"

#include "engine/common/number_text.h"

#include <limits>

namespace plab {

std::vector<BitCell> bit_cells(FormatId f, std::uint32_t code) {
    const FormatParams p = format_params(f);
    std::vector<BitCell> cells;
    cells.reserve(static_cast<std::size_t>(p.total_bits()));
    for (int pos = p.total_bits() - 1; pos >= 0; --pos) {
        const BitRole role = pos == p.total_bits() - 1 ? BitRole::sign
                             : pos >= p.man_bits       ? BitRole::exponent
                                                       : BitRole::mantissa;
        cells.push_back({role, ((code >> pos) & 1u) != 0, pos});
    }
    return cells;
}

std::uint32_t flip_bit(std::uint32_t code, int position) { return code ^ (1u << position); }

namespace {
std::string optional_text(const std::optional<float>& v) { return v ? shortest_text(*v) : "none"; }
}  // namespace

BitLayout make_bit_layout(const CastReport& r) {
    BitLayout l;
    l.format = r.format;
    l.cells = bit_cells(r.format, r.fields.code);
    l.format_label = std::string(format_display_name(r.format));
    l.hex = hex_code(r.format, r.fields.code);
    // "+inf" beside "-inf" reads better in a column than a bare "inf".
    l.value = r.value == std::numeric_limits<float>::infinity() ? "+inf" : shortest_text(r.value);
    l.value_class = std::string(class_name(r.fields.value_class));
    l.abs_error = shortest_text(r.abs_error);
    l.rel_error = shortest_text(r.rel_error);
    l.next_down = optional_text(r.next_down);
    l.next_up = optional_text(r.next_up);
    l.ulp = power_of_two_text(r.ulp);
    if (r.overflowed)
        l.note = "overflow";
    else if (r.flushed_to_zero)
        l.note = "flushed to zero";
    return l;
}

}  // namespace plab
