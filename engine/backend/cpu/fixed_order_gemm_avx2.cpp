// The fixed-order GEMM's kernel for AVX2 + FMA (compiled with -mavx2 -mfma,
// called only after a CPUID check). Each output element is still summed by
// fused multiply-adds in k order from +0, so its bits equal the portable
// kernel's; the vectors only compute 8 columns at once, in registers, for a
// tile of up to 6 rows x 16 columns (12 independent sums hide the FMA
// latency). Columns past the last multiple of 8 go through masked loads and
// stores, so a 3-class output layer is vectorised too.
#include <immintrin.h>

#include "engine/backend/cpu/fixed_order_gemm.h"

namespace plab::cpu::detail {

namespace {

struct Operands {
    int n, k;
    const float* a;
    std::ptrdiff_t a_row, a_step;
    const float* b;  // k x n
    float* acc;      // m x n
};

__m256i lane_mask(int lanes) {
    const __m256i index = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    return _mm256_cmpgt_epi32(_mm256_set1_epi32(lanes), index);
}

// Rows [i0, i0 + R), columns [j0, j0 + 8 V) of acc; the last vector holds
// only the lanes `last` allows (all 8 in full tiles).
template <int R, int V>
inline void tile(const Operands& o, int i0, int j0, __m256i last) {
    __m256 sum[R][V];
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r)
#pragma GCC unroll 4
        for (int v = 0; v < V; ++v) sum[r][v] = _mm256_setzero_ps();
    const float* a0 = o.a + i0 * o.a_row;
    const float* bp = o.b + j0;
    for (int p = 0; p < o.k; ++p, bp += o.n) {
        __m256 bv[V];
#pragma GCC unroll 4
        for (int v = 0; v + 1 < V; ++v) bv[v] = _mm256_loadu_ps(bp + 8 * v);
        bv[V - 1] = _mm256_maskload_ps(bp + 8 * (V - 1), last);
        const float* ap = a0 + p * o.a_step;
#pragma GCC unroll 8
        for (int r = 0; r < R; ++r) {
            const __m256 av = _mm256_broadcast_ss(ap + r * o.a_row);
#pragma GCC unroll 4
            for (int v = 0; v < V; ++v) sum[r][v] = _mm256_fmadd_ps(av, bv[v], sum[r][v]);
        }
    }
#pragma GCC unroll 8
    for (int r = 0; r < R; ++r) {
        float* out = o.acc + static_cast<std::ptrdiff_t>(i0 + r) * o.n + j0;
#pragma GCC unroll 4
        for (int v = 0; v + 1 < V; ++v) _mm256_storeu_ps(out + 8 * v, sum[r][v]);
        _mm256_maskstore_ps(out + 8 * (V - 1), last, sum[r][V - 1]);
    }
}

template <int R>
inline void row_block(const Operands& o, int i0) {
    const __m256i all = _mm256_set1_epi32(-1);
    int j = 0;
    for (; j + 16 <= o.n; j += 16) tile<R, 2>(o, i0, j, all);
    if (j + 8 <= o.n) {
        tile<R, 1>(o, i0, j, all);
        j += 8;
    }
    if (j < o.n) tile<R, 1>(o, i0, j, lane_mask(o.n - j));
}

}  // namespace

void gemm_kernel_avx2_fma(int m, int n, int k, const float* a, std::ptrdiff_t a_row, std::ptrdiff_t a_step,
                          const float* b, float* acc) {
    const Operands o{n, k, a, a_row, a_step, b, acc};
    int i = 0;
    for (; i + 6 <= m; i += 6) row_block<6>(o, i);
    for (; i + 2 <= m; i += 2) row_block<2>(o, i);
    for (; i < m; ++i) row_block<1>(o, i);
}

}  // namespace plab::cpu::detail
