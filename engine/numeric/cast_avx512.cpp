// AVX-512 paths (compiled with -mavx512f -mavx512bf16; see cast_kernels.h for
// the rule on what this file may call). Same integer algorithm as the AVX2
// encoder, 16 lanes with mask registers; plus the hardware FP16 and BF16
// conversion instructions.
#include <immintrin.h>

#include <cstdint>

#include "engine/numeric/cast_blocks.h"
#include "engine/numeric/cast_kernels.h"

namespace plab::detail {

namespace {

constexpr int kLanes = 16;

__m512i set1(std::uint32_t v) { return _mm512_set1_epi32(static_cast<int>(v)); }

template <FormatId F>
__m512i encode16(__m512i u, __m512i overflow_code) {
    constexpr FormatParams p = format_params(F);
    constexpr int M = p.man_bits;
    const __m512i magnitude = _mm512_and_si512(u, set1(0x7fffffffu));
    const __m512i exp_field = _mm512_srli_epi32(magnitude, 23);
    const __mmask16 normal_input = _mm512_test_epi32_mask(exp_field, exp_field);
    const __m512i mantissa = _mm512_and_si512(magnitude, set1(0x7fffffu));
    const __m512i sig = _mm512_mask_or_epi32(mantissa, normal_input, mantissa, set1(0x800000u));
    const __m512i target_raw = _mm512_sub_epi32(_mm512_max_epi32(exp_field, set1(1)), set1(127 - p.bias));
    const __m512i target = _mm512_max_epi32(target_raw, set1(1));
    __m512i shift = _mm512_add_epi32(set1(23 - M), _mm512_sub_epi32(target, target_raw));
    shift = _mm512_min_epi32(shift, set1(31));
    const __m512i half_minus_1 = _mm512_sub_epi32(_mm512_sllv_epi32(set1(1), _mm512_sub_epi32(shift, set1(1))), set1(1));
    const __m512i lsb = _mm512_and_si512(_mm512_srlv_epi32(sig, shift), set1(1));
    const __m512i q = _mm512_srlv_epi32(_mm512_add_epi32(_mm512_add_epi32(sig, half_minus_1), lsb), shift);
    __m512i code = _mm512_add_epi32(_mm512_slli_epi32(_mm512_sub_epi32(target, set1(1)), M), q);

    code = _mm512_mask_mov_epi32(code, _mm512_cmpgt_epi32_mask(code, set1(p.max_code())), overflow_code);
    __m512i nan = set1(p.nan_code());
    if constexpr (p.has_inf) nan = _mm512_or_si512(nan, _mm512_srli_epi32(_mm512_and_si512(magnitude, set1(0x7fffffu)), 23 - M));
    code = _mm512_mask_mov_epi32(code, _mm512_cmpgt_epi32_mask(magnitude, set1(0x7f800000u)), nan);
    const __m512i sign = _mm512_srli_epi32(_mm512_and_si512(u, set1(0x80000000u)), 31 - (p.exp_bits + M));
    return _mm512_or_si512(code, sign);
}

template <int Bytes>
void store_codes16(__m512i code, void* out) {
    if constexpr (Bytes == 4)
        _mm512_storeu_si512(out, _mm512_slli_epi32(code, 13));  // TF32 container
    else if constexpr (Bytes == 2)
        _mm256_storeu_si256(static_cast<__m256i*>(out), _mm512_cvtepi32_epi16(code));
    else
        _mm_storeu_si128(static_cast<__m128i*>(out), _mm512_cvtepi32_epi8(code));
}

template <FormatId F>
void encode_avx512(const float* in, void* out, std::size_t n, Overflow mode) {
    constexpr FormatParams p = format_params(F);
    constexpr int bytes = storage_bytes(F);
    const __m512i overflow = set1(p.overflow_code(mode));
    for_each_block<kLanes, 4, bytes>(in, out, n, [&](const void* s, void* d) {
        store_codes16<bytes>(encode16<F>(_mm512_loadu_si512(s), overflow), d);
    });
}

void decode_bf16_avx512(const void* in, float* out, std::size_t n) {
    for_each_block<kLanes, 2, 4>(in, out, n, [](const void* s, void* d) {
        const __m512i bits = _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256(static_cast<const __m256i*>(s))), 16);
        // A decoded NaN is quiet (as vcvtph2ps makes FP16 NaNs): set the quiet bit.
        const __mmask16 is_nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(bits, set1(0x7fffffffu)), set1(0x7f800000u));
        _mm512_storeu_si512(d, _mm512_mask_or_epi32(bits, is_nan, bits, set1(0x400000u)));
    });
}

// FP8 through FP16, as in cast_avx2.cpp: E5M2 is the top byte of FP16;
// E4M3 shifted into FP16's fields is the value times 2^-8; NaN set apart.
template <FormatId F>
void decode_fp8_via_fp16(const void* in, float* out, std::size_t n) {
    for_each_block<kLanes, 1, 4>(in, out, n, [](const void* s, void* d) {
        const __m256i bytes = _mm256_cvtepu8_epi16(_mm_loadu_si128(static_cast<const __m128i*>(s)));
        if constexpr (F == FormatId::e5m2) {
            _mm512_storeu_ps(d, _mm512_cvtph_ps(_mm256_slli_epi16(bytes, 8)));
        } else {
            const __m256i magnitude = _mm256_and_si256(bytes, _mm256_set1_epi16(0x7f));
            const __m512 v = _mm512_mul_ps(_mm512_cvtph_ps(_mm256_slli_epi16(magnitude, 7)), _mm512_set1_ps(256.0f));
            const __m512i wide = _mm512_cvtepu16_epi32(bytes);
            const __mmask16 is_nan = _mm512_cmpeq_epi32_mask(_mm512_and_si512(wide, set1(0x7fu)), set1(0x7fu));
            __m512i bits = _mm512_mask_mov_epi32(_mm512_castps_si512(v), is_nan, set1(0x7ff00000u));
            bits = _mm512_or_si512(bits, _mm512_slli_epi32(_mm512_and_si512(wide, set1(0x80u)), 24));
            _mm512_storeu_si512(d, bits);
        }
    });
}

void encode_fp16_hw(const float* in, void* out, std::size_t n, Overflow) {
    for_each_block<kLanes, 4, 2>(in, out, n, [](const void* s, void* d) {
        const __m256i h = _mm512_cvtps_ph(_mm512_loadu_ps(s), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm256_storeu_si256(static_cast<__m256i*>(d), h);
    });
}

void decode_fp16_hw(const void* in, float* out, std::size_t n) {
    for_each_block<kLanes, 2, 4>(in, out, n, [](const void* s, void* d) {
        _mm512_storeu_ps(d, _mm512_cvtph_ps(_mm256_loadu_si256(static_cast<const __m256i*>(s))));
    });
}

// vcvtneps2bf16 rounds to nearest even and quiets NaNs as the reference does,
// but treats FP32 subnormal inputs as zero. Blocks that hold one take the
// integer encoder's answer in those lanes.
void encode_bf16_hw(const float* in, void* out, std::size_t n, Overflow) {
    const __m512i overflow = set1(format_params(FormatId::bf16).inf_code());
    for_each_block<kLanes, 4, 2>(in, out, n, [&](const void* s, void* d) {
        const __m512 x = _mm512_loadu_ps(s);
        __m256i h = reinterpret_cast<__m256i>(_mm512_cvtneps_pbh(x));
        const __m512i u = _mm512_castps_si512(x);
        const __mmask16 subnormal = _mm512_testn_epi32_mask(u, set1(0x7f800000u)) &
                                    _mm512_test_epi32_mask(u, set1(0x7fffffffu));
        if (subnormal) {
            const __m512i exact = encode16<FormatId::bf16>(u, overflow);
            h = _mm512_cvtepi32_epi16(_mm512_mask_mov_epi32(_mm512_cvtepu16_epi32(h), subnormal, exact));
        }
        _mm256_storeu_si256(static_cast<__m256i*>(d), h);
    });
}

}  // namespace

const CastKernels& avx512_kernels() {
    static constexpr CastKernels k = make_kernels({
        {FormatId::tf32, &encode_avx512<FormatId::tf32>, nullptr},
        {FormatId::fp16, &encode_avx512<FormatId::fp16>, &decode_fp16_hw},
        {FormatId::bf16, &encode_avx512<FormatId::bf16>, &decode_bf16_avx512},
        {FormatId::e4m3, &encode_avx512<FormatId::e4m3>, &decode_fp8_via_fp16<FormatId::e4m3>},
        {FormatId::e5m2, &encode_avx512<FormatId::e5m2>, &decode_fp8_via_fp16<FormatId::e5m2>},
    });
    return k;
}

const CastKernels& avx512_fp16_kernels() {
    static constexpr CastKernels k = make_kernels({
        {FormatId::fp16, &encode_fp16_hw, &decode_fp16_hw},
    });
    return k;
}

const CastKernels& avx512_bf16_kernels() {
    static constexpr CastKernels k = make_kernels({
        {FormatId::bf16, &encode_bf16_hw, &decode_bf16_avx512},
    });
    return k;
}

}  // namespace plab::detail
