// The portable path: the scalar reference in a loop. Runs on any CPU and is
// the baseline every SIMD path is measured and tested against.
#include <cstring>

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

}  // namespace

const CastKernels& portable_kernels() {
    static const CastKernels k = make_portable<FormatId::fp32, FormatId::tf32, FormatId::fp16, FormatId::bf16,
                                               FormatId::e4m3, FormatId::e5m2>();
    return k;
}

}  // namespace plab::detail
