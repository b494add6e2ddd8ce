#include "engine/numeric/cast_path.h"

#include "engine/numeric/cast_kernels.h"

namespace plab {

namespace {

#if defined(__x86_64__)
constexpr bool kX86 = true;
#define PLAB_CPU_HAS(name) __builtin_cpu_supports(name)
#else
constexpr bool kX86 = false;
#define PLAB_CPU_HAS(name) false
#endif

struct CpuFeatures {
    bool avx2 = false, f16c = false, avx512f = false, avx512bf16 = false;
};

const CpuFeatures& cpu() {
    static const CpuFeatures f = [] {
        CpuFeatures c;
        if constexpr (kX86) {
            __builtin_cpu_init();
            c.avx2 = PLAB_CPU_HAS("avx2");
            c.f16c = PLAB_CPU_HAS("f16c");
            c.avx512f = PLAB_CPU_HAS("avx512f");
            c.avx512bf16 = PLAB_CPU_HAS("avx512bf16");
        }
        return c;
    }();
    return f;
}

}  // namespace

std::string_view cast_path_name(CastPath path) {
    switch (path) {
        case CastPath::portable: return "portable";
        case CastPath::avx2: return "avx2";
        case CastPath::f16c: return "f16c";
        case CastPath::avx512: return "avx512";
        case CastPath::avx512_fp16: return "avx512-fp16";
        case CastPath::avx512_bf16: return "avx512-bf16";
    }
    return "?";
}

bool cpu_supports(CastPath path) {
    const CpuFeatures& c = cpu();
    switch (path) {
        case CastPath::portable: return true;
        case CastPath::avx2:  // its decoders use vcvtph2ps (every AVX2 CPU has F16C)
        case CastPath::f16c: return c.avx2 && c.f16c;
        case CastPath::avx512:
        case CastPath::avx512_fp16: return c.avx512f;
        case CastPath::avx512_bf16: return c.avx512f && c.avx512bf16;
    }
    return false;
}

namespace detail {
const CastKernels& kernels_of(CastPath path) {
#if defined(__x86_64__)
    switch (path) {
        case CastPath::portable: break;
        case CastPath::avx2: return avx2_kernels();
        case CastPath::f16c: return f16c_kernels();
        case CastPath::avx512: return avx512_kernels();
        case CastPath::avx512_fp16: return avx512_fp16_kernels();
        case CastPath::avx512_bf16: return avx512_bf16_kernels();
    }
#endif
    (void)path;
    return portable_kernels();
}
}  // namespace detail

bool path_handles(CastPath path, FormatId f) {
    if (path != CastPath::portable && !kX86) return false;
    return detail::kernels_of(path).encode[static_cast<int>(f)] != nullptr;
}

std::vector<CastPath> available_paths(FormatId f) {
    std::vector<CastPath> paths;
    for (CastPath p : kAllCastPaths)
        if (cpu_supports(p) && path_handles(p, f)) paths.push_back(p);
    return paths;
}

CastPath best_path(FormatId f) {
    // Preference order, fastest first (bench/cast_bench measures it):
    // the conversion instructions, then the widest integer kernels.
    static constexpr CastPath kPreference[] = {CastPath::avx512_bf16, CastPath::avx512_fp16, CastPath::f16c,
                                               CastPath::avx512, CastPath::avx2};
    for (CastPath p : kPreference)
        if (cpu_supports(p) && path_handles(p, f)) return p;
    return CastPath::portable;
}

std::string cpu_cast_features() {
    std::string out;
    for (CastPath p : kAllCastPaths) {
        if (p == CastPath::portable || !cpu_supports(p)) continue;
        if (!out.empty()) out += ' ';
        out += cast_path_name(p);
    }
    return out.empty() ? "portable only" : out;
}

}  // namespace plab
