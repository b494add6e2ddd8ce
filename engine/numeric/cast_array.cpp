#include "engine/numeric/cast_array.h"

#include <cstring>
#include <string>

#include "engine/common/error.h"
#include "engine/numeric/cast_kernels.h"

namespace plab {

namespace detail {
const CastKernels& kernels_of(CastPath path);  // cast_path.cpp
}

namespace {

const detail::CastKernels& checked_kernels(CastPath path, FormatId f) {
    if (!cpu_supports(path) || !path_handles(path, f))
        throw Error("cast path '" + std::string(cast_path_name(path)) + "' cannot convert " +
                    std::string(format_name(f)) + " on this CPU; available: " + cpu_cast_features());
    return detail::kernels_of(path);
}

// The best path per format, looked up once.
CastPath cached_best(FormatId f) {
    static const auto table = [] {
        std::array<CastPath, kFormatCount> t{};
        for (FormatId g : kAllFormats) t[static_cast<int>(g)] = best_path(g);
        return t;
    }();
    return table[static_cast<int>(f)];
}

}  // namespace

void encode_array(FormatId f, const float* in, void* out, std::size_t n, Overflow mode, CastPath path) {
    if (f == FormatId::fp32) {
        std::memcpy(out, in, n * sizeof(float));
        return;
    }
    checked_kernels(path, f).encode[static_cast<int>(f)](in, out, n, mode);
}

void encode_array(FormatId f, const float* in, void* out, std::size_t n, Overflow mode) {
    encode_array(f, in, out, n, mode, cached_best(f));
}

void decode_array(FormatId f, const void* in, float* out, std::size_t n, CastPath path) {
    if (storage_bytes(f) == 4) {  // FP32 and TF32 storage is the value itself
        std::memcpy(out, in, n * sizeof(float));
        return;
    }
    checked_kernels(path, f).decode[static_cast<int>(f)](in, out, n);
}

void decode_array(FormatId f, const void* in, float* out, std::size_t n) {
    decode_array(f, in, out, n, cached_best(f));
}

void round_array(FormatId f, const float* in, float* out, std::size_t n, Overflow mode, CastPath path) {
    if (storage_bytes(f) == 4) {  // the encoded container already is the rounded value
        encode_array(f, in, out, n, mode, path);
        return;
    }
    // Encode a cache-sized block, then decode it back in place.
    constexpr std::size_t kBlock = 2048;
    alignas(64) std::uint16_t codes[kBlock];
    for (std::size_t i = 0; i < n; i += kBlock) {
        const std::size_t m = n - i < kBlock ? n - i : kBlock;
        encode_array(f, in + i, codes, m, mode, path);
        decode_array(f, codes, out + i, m, path);
    }
}

void round_array(FormatId f, const float* in, float* out, std::size_t n, Overflow mode) {
    round_array(f, in, out, n, mode, cached_best(f));
}

}  // namespace plab
