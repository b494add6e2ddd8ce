#include "engine/numeric/range_table.h"

#include <cmath>

#include "engine/numeric/scalar_cast.h"

namespace plab {

FormatRange format_range(FormatId f) {
    const FormatParams p = format_params(f);
    FormatRange r{};
    r.format = f;
    r.max = decode(p, p.max_code());
    r.min_normal = decode(p, 1u << p.man_bits);
    r.min_subnormal = decode(p, 1u);
    r.epsilon = std::ldexp(1.0, -p.man_bits);
    r.decimal_digits = (p.man_bits + 1) * std::log10(2.0);
    r.min_exponent = p.min_exponent();
    r.max_exponent = p.max_exponent();
    return r;
}

std::vector<FormatRange> range_table() {
    std::vector<FormatRange> rows;
    for (FormatId f : kAllFormats) rows.push_back(format_range(f));
    return rows;
}

}  // namespace plab
