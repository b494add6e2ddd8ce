// The portable path: the scalar reference in a loop. Runs on any CPU and is
// the baseline every SIMD path is measured and tested against.
#include <cstring>
#include <vector>

#include "engine/numeric/cast_kernels.h"
#include "engine/numeric/scalar_cast.h"

namespace plab::detail {

namespace {

template <FormatId F>
void encode_portable(const float* in, void* out, std::size_t n, Overflow mode) {
    constexpr FormatParams p = format_params(F);
    auto* dst = static_cast<StorageWord<F>*>(out);
    for (std::size_t i = 0; i < n; ++i)
        dst[i] = static_cast<StorageWord<F>>(code_to_storage(F, encode(p, in[i], mode)));
}

template <FormatId F>
void decode_portable(const void* in, float* out, std::size_t n) {
    constexpr FormatParams p = format_params(F);
    if constexpr (storage_bytes(F) == 4) {
        std::memcpy(out, in, n * sizeof(float));  // FP32 and TF32 storage is the value
    } else {
        const auto* src = static_cast<const StorageWord<F>*>(in);
        for (std::size_t i = 0; i < n; ++i) out[i] = decode(p, src[i]);
    }
}

template <FormatId... Fs>
CastKernels make_portable() {
    CastKernels k;
    ((k.encode[static_cast<int>(Fs)] = &encode_portable<Fs>, k.decode[static_cast<int>(Fs)] = &decode_portable<Fs>),
     ...);
    return k;
}

std::vector<float> build_table(FormatId f, std::uint32_t codes) {
    std::vector<float> table(codes);
    for (std::uint32_t c = 0; c < codes; ++c) table[c] = decode(f, c);
    return table;
}

}  // namespace

const CastKernels& portable_kernels() {
    static const CastKernels k = make_portable<FormatId::fp32, FormatId::tf32, FormatId::fp16, FormatId::bf16,
                                               FormatId::e4m3, FormatId::e5m2>();
    return k;
}

const float* fp16_decode_table() {
    static const std::vector<float> table = build_table(FormatId::fp16, 1u << 16);
    return table.data();
}

const float* fp8_decode_table(FormatId f) {
    static const std::vector<float> e4m3 = build_table(FormatId::e4m3, 256);
    static const std::vector<float> e5m2 = build_table(FormatId::e5m2, 256);
    return f == FormatId::e4m3 ? e4m3.data() : e5m2.data();
}

}  // namespace plab::detail
