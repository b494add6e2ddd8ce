#include "engine/numeric/cast_report.h"

#include <cmath>
#include <limits>

#include "engine/numeric/scalar_cast.h"

namespace plab {

namespace {

// Error of `value` as a stand-in for `input`, in double (exact: both are FP32).
void measure_error(CastReport& r) {
    const double in = r.input, out = r.value;
    if (std::isnan(in) || std::isnan(out)) {
        r.abs_error = r.rel_error = std::numeric_limits<double>::quiet_NaN();
        return;
    }
    if (in == out) {  // includes matching infinities
        r.abs_error = r.rel_error = 0.0;
        return;
    }
    r.abs_error = std::fabs(out - in);
    r.rel_error = std::isinf(in) ? std::numeric_limits<double>::infinity() : r.abs_error / std::fabs(in);
}

std::optional<float> value_of(FormatId f, std::optional<std::uint32_t> code) {
    if (!code) return std::nullopt;
    return decode(f, *code);
}

}  // namespace

CastReport describe_cast(FormatId f, float x, Overflow mode) {
    CastReport r;
    r.format = f;
    r.overflow_mode = mode;
    r.input = x;
    const std::uint32_t code = encode(f, x, mode);
    r.fields = decompose(f, code);
    r.value = decode(f, code);
    measure_error(r);
    // Overflow is what the non-saturating cast turns into Inf or NaN.
    r.overflowed = std::isfinite(x) && !std::isfinite(round_to(f, x, Overflow::nan));
    r.flushed_to_zero = x != 0.0f && r.value == 0.0f;
    r.next_up = value_of(f, next_up(f, code));
    r.next_down = value_of(f, next_down(f, code));
    r.ulp = ulp(f, x, mode);
    return r;
}

}  // namespace plab
