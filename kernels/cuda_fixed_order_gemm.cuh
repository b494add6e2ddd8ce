#pragma once
// The CPU's GEMM on the GPU, bit for bit (engine/backend/cpu/fixed_order_gemm.h):
// every output's k products summed by fused multiply-adds in index order from
// +0, then the CPU's epilogue (alpha, beta, the row bias, one rounding to the
// output's format), each operation rounded as the CPU rounds it. With
// fp16_sums every partial sum is rounded to FP16 after its add, the CPU's
// FP16-accumulating order (GemmSpec::accumulate).
//
// Tensor cores sum a dot product in their own order (and cuBLAS splits k as it
// likes), so their results differ from the CPU's in the last bits, and over a
// training run those bits grow into different losses and, near FP16's edge,
// different overflow decisions. Small GEMMs (the lab's toy models) run here
// instead: the GPU run is then the CPU run, and a tiled kernel this size is as
// fast as cuBLAS. Private to kernels/.
#include <cuda_runtime.h>

#include <cstddef>

#include "kernels/cuda_common.cuh"

namespace plab::gpu {

// c (m x n, row-major, in its storage) from operands holding values already
// rounded as the GEMM reads them: a(i, p) = a[i * a_row + p * a_step] and
// b(p, j) = b[p * b_row + j * b_step].
struct FixedOrderGemm {
    int m = 0, n = 0, k = 0;
    Values a{};
    std::ptrdiff_t a_row = 0, a_step = 0;
    Values b{};
    std::ptrdiff_t b_row = 0, b_step = 0;
    float alpha = 1.0f, beta = 0.0f;
    bool fp16_sums = false;  // a and b hold FP16 values; each partial sum rounded to FP16
    Values bias{};  // n values; data null when none
    Values c{};
};

void launch_fixed_order_gemm(const FixedOrderGemm& g, cudaStream_t stream);

}  // namespace plab::gpu
