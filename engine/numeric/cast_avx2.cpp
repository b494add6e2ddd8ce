// AVX2 and F16C paths (compiled with -mavx2 -mf16c; the avx2 path also needs F16C; see cast_kernels.h for
// the rule on what this file may call).
//
// The AVX2 encoder is a branch-free form of the scalar reference: per lane it
// computes the target exponent, shifts the significand right with the
// round-to-nearest-even bias (half - 1 + lsb), and lets the carry of the
// rounding ripple into the exponent field by adding ((exp - 1) << M) + q.
#include <immintrin.h>

#include <cstdint>

#include "engine/numeric/cast_blocks.h"
#include "engine/numeric/cast_kernels.h"

namespace plab::detail {

namespace {

constexpr int kLanes = 8;

__m256i set1(std::uint32_t v) { return _mm256_set1_epi32(static_cast<int>(v)); }

template <FormatId F>
__m256i encode8(__m256i u, __m256i overflow_code) {
    constexpr FormatParams p = format_params(F);
    constexpr int M = p.man_bits;
    const __m256i magnitude = _mm256_and_si256(u, set1(0x7fffffffu));
    const __m256i exp_field = _mm256_srli_epi32(magnitude, 23);
    const __m256i is_subnormal = _mm256_cmpeq_epi32(exp_field, _mm256_setzero_si256());
    const __m256i sig = _mm256_or_si256(_mm256_and_si256(magnitude, set1(0x7fffffu)),
                                        _mm256_andnot_si256(is_subnormal, set1(0x800000u)));
    // Biased exponent in the target, before and after clamping to the subnormal floor.
    const __m256i target_raw = _mm256_sub_epi32(_mm256_max_epi32(exp_field, set1(1)), set1(127 - p.bias));
    const __m256i target = _mm256_max_epi32(target_raw, set1(1));
    __m256i shift = _mm256_add_epi32(set1(23 - M), _mm256_sub_epi32(target, target_raw));
    shift = _mm256_min_epi32(shift, set1(31));
    const __m256i half_minus_1 = _mm256_sub_epi32(_mm256_sllv_epi32(set1(1), _mm256_sub_epi32(shift, set1(1))), set1(1));
    const __m256i lsb = _mm256_and_si256(_mm256_srlv_epi32(sig, shift), set1(1));
    const __m256i q = _mm256_srlv_epi32(_mm256_add_epi32(_mm256_add_epi32(sig, half_minus_1), lsb), shift);
    __m256i code = _mm256_add_epi32(_mm256_slli_epi32(_mm256_sub_epi32(target, set1(1)), M), q);

    code = _mm256_blendv_epi8(code, overflow_code, _mm256_cmpgt_epi32(code, set1(p.max_code())));
    __m256i nan = set1(p.nan_code());
    if constexpr (p.has_inf) nan = _mm256_or_si256(nan, _mm256_srli_epi32(_mm256_and_si256(magnitude, set1(0x7fffffu)), 23 - M));
    code = _mm256_blendv_epi8(code, nan, _mm256_cmpgt_epi32(magnitude, set1(0x7f800000u)));
    const __m256i sign = _mm256_srli_epi32(_mm256_and_si256(u, set1(0x80000000u)), 31 - (p.exp_bits + M));
    return _mm256_or_si256(code, sign);
}

template <int Bytes>
void store_codes8(__m256i code, void* out) {
    if constexpr (Bytes == 4) {
        _mm256_storeu_si256(static_cast<__m256i*>(out), _mm256_slli_epi32(code, 13));  // TF32 container
    } else {
        const __m128i words = _mm_packus_epi32(_mm256_castsi256_si128(code), _mm256_extracti128_si256(code, 1));
        if constexpr (Bytes == 2)
            _mm_storeu_si128(static_cast<__m128i*>(out), words);
        else
            _mm_storel_epi64(static_cast<__m128i*>(out), _mm_packus_epi16(words, words));
    }
}

template <FormatId F>
void encode_avx2(const float* in, void* out, std::size_t n, Overflow mode) {
    constexpr FormatParams p = format_params(F);
    constexpr int bytes = storage_bytes(F);
    const __m256i overflow = set1(p.overflow_code(mode));
    for_each_block<kLanes, 4, bytes>(in, out, n, [&](const void* s, void* d) {
        store_codes8<bytes>(encode8<F>(_mm256_loadu_si256(static_cast<const __m256i*>(s)), overflow), d);
    });
}

void decode_bf16_avx2(const void* in, float* out, std::size_t n) {
    for_each_block<kLanes, 2, 4>(in, out, n, [](const void* s, void* d) {
        const __m256i bits = _mm256_slli_epi32(_mm256_cvtepu16_epi32(_mm_loadu_si128(static_cast<const __m128i*>(s))), 16);
        // A decoded NaN is quiet (as vcvtph2ps makes FP16 NaNs): set the quiet bit.
        const __m256i is_nan = _mm256_cmpgt_epi32(_mm256_and_si256(bits, set1(0x7fffffffu)), set1(0x7f800000u));
        _mm256_storeu_si256(static_cast<__m256i*>(d), _mm256_or_si256(bits, _mm256_and_si256(is_nan, set1(0x400000u))));
    });
}

// 8 halves (FP16 bit patterns) -> 8 floats, exactly (vcvtph2ps).
__m256 halves_to_float(__m128i h) { return _mm256_cvtph_ps(h); }

// FP8 through FP16: E5M2 is the top byte of an FP16 pattern; E4M3's
// exponent and mantissa, shifted into FP16's fields, read as the value
// times 2^(7 - 15), which a multiply by 256 undoes exactly. E4M3's one NaN
// pattern per sign (S.1111.111) is set apart.
template <FormatId F>
void decode_fp8_via_fp16(const void* in, float* out, std::size_t n) {
    for_each_block<kLanes, 1, 4>(in, out, n, [](const void* s, void* d) {
        const __m128i bytes = _mm_cvtepu8_epi16(_mm_loadl_epi64(static_cast<const __m128i*>(s)));
        if constexpr (F == FormatId::e5m2) {
            _mm256_storeu_ps(static_cast<float*>(d), halves_to_float(_mm_slli_epi16(bytes, 8)));
        } else {
            const __m128i magnitude = _mm_and_si128(bytes, _mm_set1_epi16(0x7f));
            __m256 v = _mm256_mul_ps(halves_to_float(_mm_slli_epi16(magnitude, 7)), _mm256_set1_ps(256.0f));
            const __m256i wide = _mm256_cvtepu16_epi32(bytes);
            const __m256i is_nan = _mm256_cmpeq_epi32(_mm256_and_si256(wide, set1(0x7fu)), set1(0x7fu));
            __m256i bits = _mm256_blendv_epi8(_mm256_castps_si256(v), set1(0x7ff00000u), is_nan);
            bits = _mm256_or_si256(bits, _mm256_slli_epi32(_mm256_and_si256(wide, set1(0x80u)), 24));
            _mm256_storeu_si256(static_cast<__m256i*>(d), bits);
        }
    });
}

void encode_fp16_f16c(const float* in, void* out, std::size_t n, Overflow) {
    for_each_block<kLanes, 4, 2>(in, out, n, [](const void* s, void* d) {
        const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(static_cast<const float*>(s)),
                                          _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
        _mm_storeu_si128(static_cast<__m128i*>(d), h);
    });
}

void decode_fp16_f16c(const void* in, float* out, std::size_t n) {
    for_each_block<kLanes, 2, 4>(in, out, n, [](const void* s, void* d) {
        _mm256_storeu_ps(static_cast<float*>(d), halves_to_float(_mm_loadu_si128(static_cast<const __m128i*>(s))));
    });
}

}  // namespace

const CastKernels& avx2_kernels() {
    static constexpr CastKernels k = make_kernels({
        {FormatId::tf32, &encode_avx2<FormatId::tf32>, nullptr},
        {FormatId::fp16, &encode_avx2<FormatId::fp16>, &decode_fp16_f16c},
        {FormatId::bf16, &encode_avx2<FormatId::bf16>, &decode_bf16_avx2},
        {FormatId::e4m3, &encode_avx2<FormatId::e4m3>, &decode_fp8_via_fp16<FormatId::e4m3>},
        {FormatId::e5m2, &encode_avx2<FormatId::e5m2>, &decode_fp8_via_fp16<FormatId::e5m2>},
    });
    return k;
}

const CastKernels& f16c_kernels() {
    static constexpr CastKernels k = make_kernels({
        {FormatId::fp16, &encode_fp16_f16c, &decode_fp16_f16c},
    });
    return k;
}

}  // namespace plab::detail
