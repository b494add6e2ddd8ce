#pragma once
// Array casts: the fast, vectorised form of scalar_cast.h.
//
// Storage per element (storage_bytes()): FP32 and TF32 use the FP32 bit
// pattern (TF32 values are FP32 numbers with a 10-bit mantissa), FP16/BF16 a
// uint16_t, E4M3/E5M2 a uint8_t. `out` may alias `in` only for round_array.
#include <cstddef>
#include <cstdint>

#include "engine/numeric/cast_path.h"
#include "engine/numeric/format.h"

namespace plab {

// FP32 -> storage of `f`.
void encode_array(FormatId f, const float* in, void* out, std::size_t n, Overflow mode = Overflow::saturate);
void encode_array(FormatId f, const float* in, void* out, std::size_t n, Overflow mode, CastPath path);

// storage of `f` -> FP32 (exact: every value of every format is an FP32 number).
void decode_array(FormatId f, const void* in, float* out, std::size_t n);
void decode_array(FormatId f, const void* in, float* out, std::size_t n, CastPath path);

// FP32 -> FP32 holding the value `f` would store: the emulation's rounding step.
void round_array(FormatId f, const float* in, float* out, std::size_t n, Overflow mode = Overflow::saturate);
void round_array(FormatId f, const float* in, float* out, std::size_t n, Overflow mode, CastPath path);

}  // namespace plab
