// The portable path: the scalar reference in a loop. Runs on any CPU and is
// the baseline every SIMD path is measured and tested against.

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

// Narrow formats only: FP32/TF32 storage is the value, copied by the dispatcher.
template <FormatId F>
void decode_portable(const void* in, float* out, std::size_t n) {
    constexpr FormatParams p = format_params(F);
    const auto* src = static_cast<const StorageWord<F>*>(in);
    for (std::size_t i = 0; i < n; ++i) out[i] = decode(p, src[i]);
}

}  // namespace

const CastKernels& portable_kernels() {
    static constexpr CastKernels k = make_kernels({
        {FormatId::fp32, &encode_portable<FormatId::fp32>, nullptr},
        {FormatId::tf32, &encode_portable<FormatId::tf32>, nullptr},
        {FormatId::fp16, &encode_portable<FormatId::fp16>, &decode_portable<FormatId::fp16>},
        {FormatId::bf16, &encode_portable<FormatId::bf16>, &decode_portable<FormatId::bf16>},
        {FormatId::e4m3, &encode_portable<FormatId::e4m3>, &decode_portable<FormatId::e4m3>},
        {FormatId::e5m2, &encode_portable<FormatId::e5m2>, &decode_portable<FormatId::e5m2>},
    });
    return k;
}

}  // namespace plab::detail
