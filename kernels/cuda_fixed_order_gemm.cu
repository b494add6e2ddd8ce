#include "kernels/cuda_fixed_order_gemm.cuh"

#include "kernels/cuda_common.cuh"

namespace plab::gpu {

namespace {

// A block computes a kTile x kTile patch of c, one output per thread, reading
// k in kTile-deep slabs through shared memory; each thread still adds its
// products one at a time in index order, so the tiling changes nothing but speed.
constexpr int kTile = 16;

__global__ void fixed_order_gemm_kernel(FixedOrderGemm g) {
    __shared__ float a_slab[kTile][kTile + 1];  // [row of c][p]; +1 keeps the columns off one bank
    __shared__ float b_slab[kTile][kTile + 1];  // [p][column of c]
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int i = blockIdx.y * kTile + ty, j = blockIdx.x * kTile + tx;
    float acc = 0.0f;
    for (int p0 = 0; p0 < g.k; p0 += kTile) {
        const int ai = blockIdx.y * kTile + ty, ap = p0 + tx;
        a_slab[ty][tx] = ai < g.m && ap < g.k ? g.a[static_cast<std::size_t>(ai * g.a_row + ap * g.a_step)] : 0.0f;
        const int bp = p0 + ty, bj = blockIdx.x * kTile + tx;
        b_slab[ty][tx] = bp < g.k && bj < g.n ? g.b[static_cast<std::size_t>(bp * g.b_row + bj * g.b_step)] : 0.0f;
        __syncthreads();
        const int depth = g.k - p0 < kTile ? g.k - p0 : kTile;
        if (g.fp16_sums) {
            // The product of two FP16 values is exact: the FMA's one rounding is the add's.
            const FormatParams fp16 = format_params(FormatId::fp16);
            for (int q = 0; q < depth; ++q) acc = round_value(fp16, fmaf(a_slab[ty][q], b_slab[q][tx], acc));
        } else {
            for (int q = 0; q < depth; ++q) acc = fmaf(a_slab[ty][q], b_slab[q][tx], acc);
        }
        __syncthreads();
    }
    if (i >= g.m || j >= g.n) return;
    const std::size_t out = static_cast<std::size_t>(i) * g.n + j;
    // The CPU's epilogue (fixed_order_gemm.cpp, then add_row_bias and the
    // rounding to c's dtype), one rounded operation at a time.
    float v = acc;
    if (g.beta != 0.0f) {
        const float product = g.alpha * acc;
        const float kept = g.beta * g.c[out];
        v = product + kept;
    } else if (g.alpha != 1.0f) {
        v = g.alpha * acc;
    }
    if (g.bias.data) v += g.bias[j];
    g.c.store(out, v);
}

}  // namespace

void launch_fixed_order_gemm(const FixedOrderGemm& g, cudaStream_t stream) {
    if (g.m == 0 || g.n == 0) return;
    const dim3 block(kTile, kTile);
    const dim3 grid(static_cast<unsigned>((g.n + kTile - 1) / kTile), static_cast<unsigned>((g.m + kTile - 1) / kTile));
    fixed_order_gemm_kernel<<<grid, block, 0, stream>>>(g);
    check_cuda(cudaGetLastError(), "gemm (fixed order)");
}

}  // namespace plab::gpu
