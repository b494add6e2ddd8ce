#pragma once
// Internal: the per-path kernel tables the dispatcher in cast_array.cpp picks from.
//
// The SIMD paths live in translation units compiled with -mavx2 / -mavx512*.
// Such a file must not call inline functions shared with the rest of the
// program (the linker could keep its AVX-512 copy for everyone): it includes
// only this header and format.h, whose functions it uses at compile time only.
#include <cstddef>
#include <initializer_list>

#include "engine/numeric/format.h"

namespace plab::detail {

using EncodeFn = void (*)(const float* in, void* out, std::size_t n, Overflow mode);
using DecodeFn = void (*)(const void* in, float* out, std::size_t n);

// One entry per FormatId; nullptr where the path has no kernel for the format.
// Decoders exist for the narrow formats only: FP32 and TF32 storage already
// is the value, which the dispatcher copies.
struct CastKernels {
    EncodeFn encode[kFormatCount] = {};
    DecodeFn decode[kFormatCount] = {};
};

struct KernelEntry {
    FormatId format;
    EncodeFn encode;
    DecodeFn decode;
};

// Built at compile time (`static constexpr`), so the SIMD files run no
// shared code to fill their tables.
constexpr CastKernels make_kernels(std::initializer_list<KernelEntry> entries) {
    CastKernels k;
    for (const KernelEntry& e : entries) {
        k.encode[static_cast<int>(e.format)] = e.encode;
        k.decode[static_cast<int>(e.format)] = e.decode;
    }
    return k;
}

const CastKernels& portable_kernels();
const CastKernels& avx2_kernels();
const CastKernels& f16c_kernels();
const CastKernels& avx512_kernels();
const CastKernels& avx512_fp16_kernels();
const CastKernels& avx512_bf16_kernels();


}  // namespace plab::detail
