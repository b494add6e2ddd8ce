#pragma once
// What every op file of the CUDA backend shares: error checks, the rounding
// of an output to its dtype, a grid-stride launch over n indices, and a
// deterministic reduction. Private to kernels/ (needs nvcc).
//
// The kernels compute with the engine's scalar definitions (PLAB_HD headers:
// numeric/scalar_cast.h, backend/activation_math.h, optim/update_math.h);
// plab_kernels is compiled with --fmad=false so that every product is rounded
// on its own, as on the CPU, and elementwise ops agree with it bit for bit.
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "engine/backend/op_checks.h"
#include "engine/backend/step_graph.h"
#include "engine/common/error.h"
#include "engine/numeric/fast_cast.h"
#include "engine/numeric/scalar_cast.h"
#include "engine/tensor/tensor.h"

namespace plab::gpu {

// The argument checks every backend shares (one wording, two backends).
using checks::require;
using checks::require_same_shape;

// Scratch slots of CudaBackend::scratch(); the *Table ones are also the
// slots of CudaBackend::device_table().
enum ScratchSlot : int {
    kGemmA,
    kGemmB,
    kReducePartials,
    kUnscaleTable,
    kTelemetryPartials,
    kUpdateTable,
    kSquaresTable,
    kClipTable,
    kGemmWorkspace,
    kRowTerms,
    kGemmOut,  // a GEMM's FP32 result before its epilogue (16-bit outputs)
    kScratchSlots
};

// cuBLAS's and cuBLASLt's workspace: what NVIDIA suggests for Hopper.
inline constexpr std::size_t kGemmWorkspaceBytes = 32u << 20;

// plab::Error naming the failed call and CUDA's (cuBLAS's) reason.
inline void check_cuda(cudaError_t status, const char* what) {
    if (status != cudaSuccess) [[unlikely]]
        throw Error(std::string("CUDA ") + what + " failed: " + cudaGetErrorString(status));
}
inline void check_cublas(cublasStatus_t status, const char* what) {
    if (status != CUBLAS_STATUS_SUCCESS) [[unlikely]]
        throw Error(std::string("cuBLAS ") + what + " failed: " + cublasGetStatusString(status));
}

// Every wait of the host for the device goes through here, so that it can be
// counted: a training step should wait once, at its finish (CudaBackend::host_waits).
std::uint64_t next_host_wait();  // cuda_backend.cu: counts one
// A captured step (cuda_step_graph.cu) cannot wait or allocate: the capture
// is given up (CaptureRefused) and the step runs op by op.
inline void refuse_while_capturing(cudaStream_t stream, const char* op) {
    cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
    check_cuda(cudaStreamIsCapturing(stream, &status), op);
    if (status != cudaStreamCaptureStatusNone)
        throw CaptureRefused(std::string(op) + " cannot be part of a captured step: it waits for the device or allocates");
}

inline void wait_for_stream(cudaStream_t stream, const char* op) {
    refuse_while_capturing(stream, op);
    next_host_wait();
    check_cuda(cudaStreamSynchronize(stream), op);
}

// A multi-tensor launch gives each tensor a grid row (blockIdx.y), of which
// CUDA allows 65535.
inline void require_tensor_rows(std::size_t tensors, const char* op) {
    require(tensors <= 65535, [&] {
        return std::string(op) + ": " + std::to_string(tensors) + " tensors; at most 65535 in one call";
    });
}

// plab::Error when t is a CPU tensor (a kernel would fault on its host pointer).
inline void require_on_device(const Tensor& t, const char* op) {
    require(t.device() == Device::cuda || t.size() == 0, [&] {
        return std::string(op) + ": a " + shape_text(t.shape()) +
               " tensor is on the CPU; allocate it with the CUDA backend";
    });
}

// The FP32 words of a tensor kept in FP32 storage (optimizer state, flags,
// masters, FP32 activations): plab::Error for a tensor stored in 16 bits,
// which only device_values() reads.
inline float* device_floats(Tensor& t, const char* op) {
    require_on_device(t, op);
    require(t.element_bytes() == sizeof(float), [&] {
        return std::string(op) + ": needs FP32 storage, and this " + shape_text(t.shape()) + " " +
               std::string(format_display_name(t.dtype())) + " tensor is stored in 16 bits";
    });
    return static_cast<float*>(t.raw());
}
inline const float* device_floats(const Tensor& t, const char* op) {
    return device_floats(const_cast<Tensor&>(t), op);
}

// FP16, BF16 and TF32 take the fast casts of fast_cast.h (the same bits as
// the shared cast); the other formats the shared cast itself.
__device__ __forceinline__ bool is_fp16(const FormatParams& p) { return p.exp_bits == 5 && p.man_bits == 10; }
__device__ __forceinline__ bool is_bf16(const FormatParams& p) { return p.exp_bits == 8 && p.man_bits == 7; }
__device__ __forceinline__ bool is_tf32(const FormatParams& p) { return p.exp_bits == 8 && p.man_bits == 10; }

// x rounded to the format (RNE; FP8 saturates, as the CPU's round_array by default).
__device__ __forceinline__ float round_value(const FormatParams& p, float x) {
    if (is_fp16(p)) return decode_fp16(encode_fp16(x));
    if (is_bf16(p)) return decode_bf16(encode_bf16(x));
    if (is_tf32(p)) return round_tf32(x);
    return decode(p, encode(p, x));
}

// x's code in p, which is FP16 or BF16 (a GEMM operand, a tensor's 16-bit storage).
__device__ __forceinline__ std::uint16_t encode_16bit(const FormatParams& p, float x) {
    return is_fp16(p) ? encode_fp16(x) : encode_bf16(x);
}

// A tensor's values as a kernel reads and writes them, whatever its storage:
// FP32 words holding values of its dtype, or an FP16 / BF16 tensor's own 16
// bits (native storage: half the bytes, what the tensor cores read). Reads
// give the FP32 value; store() rounds to the dtype (the shared RNE cast) and
// keeps it in the tensor's storage. Trivially copyable: kernels take it by value.
struct Values {
    void* data;
    FormatParams format;
    bool bits16;

    __device__ __forceinline__ float operator[](std::size_t i) const {
        if (!bits16) return static_cast<const float*>(data)[i];
        const std::uint16_t code = static_cast<const std::uint16_t*>(data)[i];
        return is_fp16(format) ? decode_fp16(code) : decode_bf16(code);
    }
    __device__ __forceinline__ void store(std::size_t i, float v) const {
        if (!bits16) {
            static_cast<float*>(data)[i] = round_value(format, v);
            return;
        }
        static_cast<std::uint16_t*>(data)[i] = encode_16bit(format, v);
    }
};

inline Values device_values(const Tensor& t, const char* op) {
    require_on_device(t, op);
    return {const_cast<void*>(t.raw()), format_params(t.dtype()), t.element_bytes() == sizeof(std::uint16_t)};
}

inline constexpr int kThreads = 256;
// Grid size for n work items: enough blocks to fill an H100 several times
// over, grid-stride beyond that.
inline unsigned blocks_for(std::size_t n) {
    const std::size_t wanted = (n + kThreads - 1) / kThreads;
    return static_cast<unsigned>(wanted < 4096 ? wanted : 4096);
}

// The grid of a multi-tensor launch: row y for tensor y, enough blocks across
// for the longest (at most 1024: each block strides over the rest).
inline dim3 multi_tensor_grid(std::size_t longest, std::size_t tensors) {
    const unsigned across = blocks_for(longest);
    return dim3(across < 1024 ? across : 1024, static_cast<unsigned>(tensors));
}

template <typename F>
__global__ void for_each_kernel(std::size_t n, F f) {
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) f(i);
}

// f(i) for i in [0, n) on `stream`, one thread per index.
template <typename F>
void for_each(std::size_t n, cudaStream_t stream, const char* op, F f) {
    if (n == 0) return;
    for_each_kernel<<<blocks_for(n), kThreads, 0, stream>>>(n, f);
    check_cuda(cudaGetLastError(), op);
}

// --- sums in the CPU's index order, read by a whole warp ----------------------
// An op whose CPU loop folds a row in index order (a LayerNorm row's mean, a
// softmax row's max and sum, a dot product) keeps that order on the GPU to
// give the CPU's bits. One thread per row keeps it too, but reads each row
// alone, strided across the warp; a warp per row reads 32 consecutive terms
// at once (coalesced) and then every lane folds them in index order, so each
// lane ends with the CPU's value.

inline constexpr int kWarp = 32;
inline constexpr unsigned kFullWarp = 0xffffffffu;

__device__ __forceinline__ float from_lane(float v, int lane) { return __shfl_sync(kFullWarp, v, lane); }
__device__ __forceinline__ float2 from_lane(float2 v, int lane) {
    return make_float2(__shfl_sync(kFullWarp, v.x, lane), __shfl_sync(kFullWarp, v.y, lane));
}

// acc folded with term(first), ..., term(count - 1) in that order, by every
// lane of the warp (all of them must call it). term(j) may depend on j alone.
template <typename T, typename Term, typename Combine>
__device__ T ordered_warp_fold(int first, int count, T acc, Term term, Combine combine) {
    const int lane = static_cast<int>(threadIdx.x) % kWarp;
    for (int base = first; base < count; base += kWarp) {
        const T mine = base + lane < count ? term(base + lane) : T{};
        const int here = count - base < kWarp ? count - base : kWarp;
        for (int l = 0; l < here; ++l) acc = combine(acc, from_lane(mine, l));
    }
    return acc;
}

// The CPU's `float s = 0; for j: s += term(j);`.
template <typename Term>
__device__ float ordered_warp_sum(int count, Term term) {
    return ordered_warp_fold(0, count, 0.0f, term, [](float a, float b) { return a + b; });
}

template <typename F>
__global__ void for_each_warp_kernel(std::size_t n, F f) {
    const std::size_t warps = static_cast<std::size_t>(gridDim.x) * blockDim.x / kWarp;
    const std::size_t first = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kWarp;
    const int lane = static_cast<int>(threadIdx.x) % kWarp;
    for (std::size_t i = first; i < n; i += warps) f(i, lane);  // the same i across the warp
}

// f(i, lane) for i in [0, n), one warp per index: all 32 lanes run f(i, .).
template <typename F>
void for_each_warp(std::size_t n, cudaStream_t stream, const char* op, F f) {
    if (n == 0) return;
    for_each_warp_kernel<<<blocks_for(n * kWarp), kThreads, 0, stream>>>(n, f);
    check_cuda(cudaGetLastError(), op);
}

// --- deterministic reduction ---------------------------------------------------
// combine over i of map(i): each thread folds a fixed strided set of indices,
// each block folds its threads in a fixed tree, one block folds the blocks.
// The grid depends only on n and the device's multiprocessor count, so a
// result is the same on every run on one GPU model (though not, for
// floating-point sums, the CPU's index-order value). `map` may also write (an
// op's output), each i is visited once. T: trivially copyable.
inline constexpr int kReduceBlocks = 256;      // per tensor, in the multi-tensor sums
inline constexpr int kMaxReduceBlocks = 1024;  // launch_reduce's partials
inline constexpr std::size_t kReduceScratchBytes = 64 * (kMaxReduceBlocks + 1);  // T up to 64 bytes

// The device's multiprocessor count (cuda_backend.cu; asked once).
int multiprocessors();

// launch_reduce's grid for n: four blocks of kThreads per multiprocessor keep
// every one busy streaming (256 blocks left half of an H100's idle), fewer
// when n is small.
inline unsigned reduce_grid(std::size_t n) {
    const std::size_t wanted = (n + kThreads - 1) / kThreads;
    const std::size_t limit = std::min<std::size_t>(kMaxReduceBlocks, 4 * static_cast<std::size_t>(multiprocessors()));
    return static_cast<unsigned>(std::min(wanted, limit));
}

template <typename T, typename Combine>
__device__ T block_fold(T acc, Combine combine) {
    extern __shared__ __align__(16) unsigned char shared_bytes[];
    T* s = reinterpret_cast<T*>(shared_bytes);
    s[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned width = blockDim.x / 2; width > 0; width /= 2) {
        if (threadIdx.x < width) s[threadIdx.x] = combine(s[threadIdx.x], s[threadIdx.x + width]);
        __syncthreads();
    }
    return s[0];
}

template <typename T, typename Map, typename Combine>
__global__ void reduce_blocks_kernel(std::size_t n, T identity, Map map, Combine combine, T* partials) {
    T acc = identity;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        acc = combine(acc, map(i));
    const T total = block_fold(acc, combine);
    if (threadIdx.x == 0) partials[blockIdx.x] = total;
}

// One block of kThreads: thread t folds partials t, t + kThreads, ... in order.
template <typename T, typename Combine>
__global__ void reduce_partials_kernel(unsigned count, T identity, Combine combine, T* partials) {
    T acc = identity;
    for (unsigned i = threadIdx.x; i < count; i += blockDim.x) acc = combine(acc, partials[i]);
    const T total = block_fold(acc, combine);
    if (threadIdx.x == 0) partials[kMaxReduceBlocks] = total;
}

// The reduction, its result left on the device (returned: in `scratch`,
// which holds kReduceScratchBytes, until the next reduction there). n = 0
// gives the identity.
template <typename T, typename Map, typename Combine>
T* launch_reduce(std::size_t n, T identity, cudaStream_t stream, void* scratch, const char* op, Map map,
                 Combine combine) {
    static_assert(sizeof(T) <= 64);
    T* partials = static_cast<T*>(scratch);
    const unsigned blocks = reduce_grid(n);
    const std::size_t shared = kThreads * sizeof(T);
    if (blocks > 0) {
        reduce_blocks_kernel<<<blocks, kThreads, shared, stream>>>(n, identity, map, combine, partials);
        check_cuda(cudaGetLastError(), op);
    }
    reduce_partials_kernel<<<1, kThreads, shared, stream>>>(blocks, identity, combine, partials);
    check_cuda(cudaGetLastError(), op);
    return partials + kMaxReduceBlocks;
}

// The reduction, its result copied to the host (one sync).
template <typename T, typename Map, typename Combine>
T reduce(std::size_t n, T identity, cudaStream_t stream, void* scratch, const char* op, Map map, Combine combine) {
    if (n == 0) return identity;
    const T* on_device = launch_reduce(n, identity, stream, scratch, op, map, combine);
    T result;
    check_cuda(cudaMemcpyAsync(&result, on_device, sizeof(T), cudaMemcpyDeviceToHost, stream), op);
    wait_for_stream(stream, op);
    return result;
}

// Common combines.
struct Add {
    template <typename T>
    __device__ T operator()(T a, T b) const { return a + b; }
};
struct Or {
    __device__ int operator()(int a, int b) const { return a | b; }
};

}  // namespace plab::gpu
