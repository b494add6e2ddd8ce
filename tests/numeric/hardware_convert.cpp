#include "hardware_convert.h"

#include <immintrin.h>

#include <cstring>

namespace plab::test {

bool cpu_has_f16c() { return __builtin_cpu_supports("avx") && __builtin_cpu_supports("f16c"); }
bool cpu_has_avx512_bf16() { return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bf16"); }

__attribute__((target("avx,f16c"))) void hardware_fp32_to_fp16(const float* in, std::uint16_t* out,
                                                               std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out[i] = _cvtss_sh(in[i], _MM_FROUND_TO_NEAREST_INT);
}

__attribute__((target("avx,f16c"))) void hardware_fp16_to_fp32(const std::uint16_t* in, float* out,
                                                               std::size_t n) {
    for (std::size_t i = 0; i < n; ++i) out[i] = _cvtsh_ss(in[i]);
}

__attribute__((target("avx512f,avx512bf16"))) void hardware_fp32_to_bf16(const float* in, std::uint16_t* out,
                                                                         std::size_t n) {
    for (std::size_t i = 0; i < n; i += 16) {
        const std::size_t m = n - i < 16 ? n - i : 16;
        const __mmask16 mask = static_cast<__mmask16>((1u << m) - 1u);
        const __m512 x = _mm512_maskz_loadu_ps(mask, in + i);
        const __m256bh h = _mm512_cvtneps_pbh(x);
        std::memcpy(out + i, &h, m * sizeof(std::uint16_t));
    }
}

}  // namespace plab::test
