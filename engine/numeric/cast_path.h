#pragma once
// The implementations ("paths") of the array casts, and which one this CPU runs.
//
// Every path produces exactly the bits of the scalar reference in
// scalar_cast.h; the exhaustive tests check that over all 2^32 inputs.
#include <string_view>
#include <vector>

#include "engine/numeric/format.h"

namespace plab {

enum class CastPath : std::uint8_t {
    portable,     // plain C++ loops over the scalar reference; runs everywhere
    avx2,         // integer round-to-nearest-even, 8 lanes (AVX2)
    f16c,         // FP16 through the vcvtps2ph/vcvtph2ps instructions, 8 lanes
    avx512,       // integer round-to-nearest-even, 16 lanes (AVX-512F/BW)
    avx512_fp16,  // FP16 through 512-bit vcvtps2ph/vcvtph2ps (AVX-512F), 16 lanes
    avx512_bf16,  // BF16 through vcvtneps2bf16 (AVX-512 BF16), 16 lanes
};
inline constexpr CastPath kAllCastPaths[] = {CastPath::portable, CastPath::avx2,        CastPath::f16c,
                                             CastPath::avx512,   CastPath::avx512_fp16, CastPath::avx512_bf16};

std::string_view cast_path_name(CastPath path);

// Whether this CPU (and OS) can execute the path's instructions.
bool cpu_supports(CastPath path);
// Whether the path has a kernel for this format (f16c only does FP16, ...).
bool path_handles(CastPath path, FormatId f);
// Paths usable for `f` on this CPU, portable first.
std::vector<CastPath> available_paths(FormatId f);
// The fastest available path for `f`, chosen once from CPUID.
CastPath best_path(FormatId f);

// "avx2 f16c avx512 ..." for --version and reports.
std::string cpu_cast_features();

}  // namespace plab
