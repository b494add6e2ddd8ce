#pragma once
// The representable range of each format, derived from its bit parameters.
#include <vector>

#include "engine/numeric/format.h"

namespace plab {

struct FormatRange {
    FormatId format;
    double max;             // largest finite value
    double min_normal;      // 2^(1 - bias)
    double min_subnormal;   // 2^(1 - bias - man_bits)
    double epsilon;         // 2^-man_bits: the gap from 1 to the next value
    double decimal_digits;  // (man_bits + 1) * log10(2)
    int min_exponent;       // of the smallest normal
    int max_exponent;       // of the largest finite value
};

FormatRange format_range(FormatId f);
std::vector<FormatRange> range_table();  // all formats, in kAllFormats order

}  // namespace plab
