#pragma once
// Internal: the per-path kernel tables the dispatcher in cast_array.cpp picks from.
//
// The SIMD paths live in translation units compiled with -mavx2 / -mavx512*.
// Such a file must not call inline functions shared with the rest of the
// program (the linker could keep its AVX-512 copy for everyone): it includes
// only this header and format.h, whose functions it uses at compile time only.
#include <cstddef>

#include "engine/numeric/format.h"

namespace plab::detail {

using EncodeFn = void (*)(const float* in, void* out, std::size_t n, Overflow mode);
using DecodeFn = void (*)(const void* in, float* out, std::size_t n);

// One entry per FormatId; nullptr where the path has no kernel for the format.
struct CastKernels {
    EncodeFn encode[kFormatCount] = {};
    DecodeFn decode[kFormatCount] = {};
};

const CastKernels& portable_kernels();
const CastKernels& avx2_kernels();
const CastKernels& f16c_kernels();
const CastKernels& avx512_kernels();
const CastKernels& avx512_fp16_kernels();
const CastKernels& avx512_bf16_kernels();

// FP32 values of all 2^16 FP16 and all 2^8 FP8 codes, built once from the
// scalar reference; the SIMD decoders gather from them.
const float* fp16_decode_table();
const float* fp8_decode_table(FormatId f);  // e4m3 or e5m2

}  // namespace plab::detail
