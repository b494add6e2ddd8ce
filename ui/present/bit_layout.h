#pragma once
// View model of one value in one format: the bit cells to draw (sign,
// exponent, mantissa), and the texts beside them. Shared by `plab bits`, the
// Qt bit-layout panel and the ImGui one; it draws nothing itself.
#include <string>
#include <vector>

#include "engine/numeric/cast_report.h"

namespace plab {

enum class BitRole { sign, exponent, mantissa };

struct BitCell {
    BitRole role;
    bool set;      // the bit's value
    int position;  // bit index in the code, 0 = least significant
};

struct BitLayout {
    FormatId format = FormatId::fp32;
    std::vector<BitCell> cells;  // most significant first, as written
    std::string format_label;    // "FP16"
    std::string hex;             // "0x3c00"
    std::string value;           // decoded, shortest round-trip text
    std::string value_class;     // "normal", ...
    std::string abs_error, rel_error;
    std::string next_down, next_up, ulp;
    std::string note;            // "overflow", "flushed to zero", or empty
};

BitLayout make_bit_layout(const CastReport& report);

// The bit cells of a code, for drawing a pattern without a cast.
std::vector<BitCell> bit_cells(FormatId f, std::uint32_t code);

// Code with one bit flipped: what a click on a bit cell does.
std::uint32_t flip_bit(std::uint32_t code, int position);

}  // namespace plab
