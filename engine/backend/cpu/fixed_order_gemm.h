#pragma once
// The CPU backend's GEMM, with one summation order on every machine.
//
// A tuned BLAS picks its kernel from the CPU it finds (OpenBLAS runs a
// Haswell kernel on a Zen 3 and a Cooper Lake one on a Zen 4), and each
// kernel adds the k products in its own order: the FP32 sums, and so every
// record of a run, came out different from one machine to the next. The lab
// is an exact emulation whose runs must be the same bits everywhere, so its
// GEMM fixes the order instead:
//
//   acc(i, j) = fma(a(i, k-1), b(k-1, j), ... fma(a(i, 1), b(1, j), fma(a(i, 0), b(0, j), +0)))
//   c(i, j)   = alpha * acc(i, j)                      when beta == 0 (c is not read)
//             = alpha * acc(i, j) + beta * c(i, j)     otherwise (each operation rounded once)
//
// A fused multiply-add rounds once, so the vector path (AVX2 + FMA, chosen
// at run time) and the portable one (std::fma) give identical bits.
//
// With fp16_sums (GemmSpec::accumulate FP16; a and b hold FP16 values), the
// same k order with every partial sum rounded to FP16:
//
//   acc(i, j) = h(a(i, k-1) b(k-1, j) + ... h(a(i, 1) b(1, j) + h(a(i, 0) b(0, j) + +0)))
//
// where the product is exact in FP32, the add rounds once to FP32 and h is
// the shared cast to FP16 (scalar_cast.h, through the array cast). The
// epilogue is the FP32 one above.
#include <cstddef>
#include <vector>

namespace plab::cpu {

struct GemmShape {
    int m = 0, n = 0, k = 0;
    bool trans_a = false;  // a is stored k x m instead of m x k (row-major)
    bool trans_b = false;  // b is stored n x k instead of k x n
    bool fp16_sums = false;  // each partial sum rounded to FP16 (a and b hold FP16 values)
};

// c (m x n, row-major) from a and b as described above. `scratch` is reused
// across calls to avoid allocations.
void fixed_order_gemm(const GemmShape& shape, float alpha, const float* a, const float* b, float beta, float* c,
                      std::vector<float>& scratch);

// Which kernel fixed_order_gemm runs on this CPU: "avx2-fma" or "portable".
const char* fixed_order_gemm_path();

namespace detail {
// acc (m x n) = the fused k-ordered sums above; b is k x n row-major and
// a(i, p) = a[i * a_row + p * a_step].
using GemmKernel = void (*)(int m, int n, int k, const float* a, std::ptrdiff_t a_row, std::ptrdiff_t a_step,
                            const float* b, float* acc);
void gemm_kernel_portable(int m, int n, int k, const float* a, std::ptrdiff_t a_row, std::ptrdiff_t a_step,
                          const float* b, float* acc);
void gemm_kernel_avx2_fma(int m, int n, int k, const float* a, std::ptrdiff_t a_row, std::ptrdiff_t a_step,
                          const float* b, float* acc);
// The fp16_sums order on every machine (its rounding is the array cast's, whose paths agree).
void gemm_kernel_fp16_sums(int m, int n, int k, const float* a, std::ptrdiff_t a_row, std::ptrdiff_t a_step,
                           const float* b, float* acc);
// Forces the portable kernel (tests compare the two paths).
void force_portable_gemm(bool on);
}  // namespace detail

}  // namespace plab::cpu
