#pragma once
// Everything there is to say about one FP32 value cast into one format:
// what the bit view, `plab bits` and the GUIs' value inspectors show.
#include <cstdint>
#include <optional>

#include "engine/numeric/bit_fields.h"
#include "engine/numeric/format.h"

namespace plab {

struct CastReport {
    FormatId format = FormatId::fp32;
    Overflow overflow_mode = Overflow::saturate;
    float input = 0.0f;           // the FP32 value that was cast
    BitFields fields;             // of the encoded result
    float value = 0.0f;           // the result, decoded back to FP32 (exact)
    double abs_error = 0.0;       // |value - input|; NaN if either is NaN
    double rel_error = 0.0;       // abs_error / |input|; 0 when both are 0
    bool overflowed = false;      // a finite input became Inf, NaN or was clamped to +-max
    bool flushed_to_zero = false; // a non-zero input became zero
    std::optional<float> next_up, next_down;  // neighbouring values of the result
    double ulp = 0.0;             // spacing of the format at the result
};

CastReport describe_cast(FormatId f, float x, Overflow mode = Overflow::saturate);

}  // namespace plab
