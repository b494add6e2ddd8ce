// portable_exp four lanes at a time: each lane does the scalar function's
// double operations in its order (compiled without FMA and with contraction
// off), so the bits match; the lanes the scalar function answers early (NaN,
// overflow, underflow) are computed on 0 and replaced at the end.
#include <immintrin.h>

#include "engine/numeric/portable_exp_array.h"
#include "engine/numeric/portable_math.h"

namespace plab::detail {

namespace {

// e^x for four floats known to lie in [-104, 89]: portable_exp's steps on a
// vector of four doubles (GCC's vector operators; a scalar operand is
// broadcast).
__m128 exp_in_range(__m128 x) {
    const __m256d xd = _mm256_cvtps_pd(x);
    const __m256d k = portable_math::exp_multiple_of_ln2(xd);
    const __m256d sum = portable_math::exp_of_remainder(xd, k);
    // 2^k from k's bits: (k + 1023) << 52, as portable_math::pow2.
    const __m256i k64 = _mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(k));
    const __m256d pow2 = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(k64, _mm256_set1_epi64x(1023)), 52));
    return _mm256_cvtpd_ps(sum * pow2);
}

__m128 exp4(__m128 x) {
    const __m128 nan = _mm_cmpunord_ps(x, x);
    const __m128 over = _mm_cmpgt_ps(x, _mm_set1_ps(89.0f));
    const __m128 under = _mm_cmplt_ps(x, _mm_set1_ps(-104.0f));
    const __m128 early = _mm_or_ps(nan, _mm_or_ps(over, under));
    __m128 y = exp_in_range(_mm_andnot_ps(early, x));
    y = _mm_blendv_ps(y, _mm_setzero_ps(), under);
    y = _mm_blendv_ps(y, _mm_set1_ps(portable_math::infinity()), over);
    return _mm_blendv_ps(y, _mm_add_ps(x, x), nan);
}

}  // namespace

void portable_exp_avx2(const float* x, float* y, std::size_t n) {
    std::size_t i = 0;
    // Four independent series at a time: one is a chain of dependent
    // multiply-adds, and the core can run the others in its latency.
    for (; i + 16 <= n; i += 16) {
        const __m128 a = exp4(_mm_loadu_ps(x + i)), b = exp4(_mm_loadu_ps(x + i + 4));
        const __m128 c = exp4(_mm_loadu_ps(x + i + 8)), d = exp4(_mm_loadu_ps(x + i + 12));
        _mm_storeu_ps(y + i, a);
        _mm_storeu_ps(y + i + 4, b);
        _mm_storeu_ps(y + i + 8, c);
        _mm_storeu_ps(y + i + 12, d);
    }
    for (; i + 4 <= n; i += 4) _mm_storeu_ps(y + i, exp4(_mm_loadu_ps(x + i)));
    if (i == n) return;
    float in[4] = {0, 0, 0, 0}, out[4];
    for (std::size_t j = i; j < n; ++j) in[j - i] = x[j];
    _mm_storeu_ps(out, exp4(_mm_loadu_ps(in)));
    for (std::size_t j = i; j < n; ++j) y[j] = out[j - i];
}

}  // namespace plab::detail
