#include "kernels/round_kernel.h"

#include <cuda_runtime.h>

#include <string>

#include "engine/common/error.h"
#include "engine/numeric/scalar_cast.h"
#include "kernels/cuda_common.cuh"

namespace plab::cuda {

namespace {

template <FormatId F>
__global__ void round_kernel(const float* in, float* out, std::size_t n, Overflow mode) {
    constexpr FormatParams p = format_params(F);
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = decode(p, encode(p, in[i], mode));
}

// Inputs first .. first + n - 1 written into a tensor's storage and read
// back through gpu::Values, against the shared cast's round trip; differences
// counted, the first kept (atomicMin).
__global__ void storage_cast_kernel(gpu::Values storage, std::uint32_t first, std::uint32_t n,
                                    unsigned long long* count, unsigned* first_difference) {
    const std::uint32_t stride = gridDim.x * blockDim.x;
    for (std::uint32_t i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
        const std::uint32_t input = first + i;
        const float x = bits_float(input);
        storage.store(i, x);
        const std::uint32_t code = encode(storage.format, x);
        bool same = float_bits(storage[i]) == float_bits(decode(storage.format, code));
        if (storage.bits16) same = same && static_cast<const std::uint16_t*>(storage.data)[i] == code;
        if (!same) {
            atomicAdd(count, 1ull);
            atomicMin(first_difference, input);
        }
    }
}

void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess)
        throw Error(std::string("CUDA ") + what + " failed: " + cudaGetErrorString(status) +
                    "; use --backend cpu if this machine has no usable GPU");
}

// n values of T on the device, freed on every exit path.
template <typename T>
struct DeviceBuffer {
    T* ptr = nullptr;
    explicit DeviceBuffer(std::size_t n) { check(cudaMalloc(&ptr, n * sizeof(T)), "cudaMalloc"); }
    ~DeviceBuffer() { cudaFree(ptr); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;
};

}  // namespace

void round_device_array(FormatId f, const float* in, float* out, std::size_t n, Overflow mode, void* stream) {
    if (n == 0) return;
    const int threads = 256;
    const std::size_t wanted = (n + threads - 1) / threads;
    const unsigned blocks = static_cast<unsigned>(wanted < 65535 * 8 ? wanted : 65535 * 8);
    auto s = static_cast<cudaStream_t>(stream);
    switch (f) {
        case FormatId::fp32: round_kernel<FormatId::fp32><<<blocks, threads, 0, s>>>(in, out, n, mode); break;
        case FormatId::tf32: round_kernel<FormatId::tf32><<<blocks, threads, 0, s>>>(in, out, n, mode); break;
        case FormatId::fp16: round_kernel<FormatId::fp16><<<blocks, threads, 0, s>>>(in, out, n, mode); break;
        case FormatId::bf16: round_kernel<FormatId::bf16><<<blocks, threads, 0, s>>>(in, out, n, mode); break;
        case FormatId::e4m3: round_kernel<FormatId::e4m3><<<blocks, threads, 0, s>>>(in, out, n, mode); break;
        case FormatId::e5m2: round_kernel<FormatId::e5m2><<<blocks, threads, 0, s>>>(in, out, n, mode); break;
    }
    check(cudaGetLastError(), "kernel launch");
}

void round_on_device(FormatId f, const float* host_in, float* host_out, std::size_t n, Overflow mode) {
    if (n == 0) return;
    DeviceBuffer<float> in(n), out(n);
    check(cudaMemcpy(in.ptr, host_in, n * sizeof(float), cudaMemcpyHostToDevice), "copy to device");
    round_device_array(f, in.ptr, out.ptr, n, mode, nullptr);
    check(cudaMemcpy(host_out, out.ptr, n * sizeof(float), cudaMemcpyDeviceToHost), "copy from device");
}

StorageCastDifferences storage_cast_differences(FormatId f) {
    if (f != FormatId::fp16 && f != FormatId::bf16 && f != FormatId::tf32)
        throw Error("storage_cast_differences: FP16, BF16 or TF32, not " + std::string(format_display_name(f)));
    const bool bits16 = f != FormatId::tf32;
    constexpr std::uint32_t kChunk = 1u << 24;
    struct Results {
        unsigned long long count;
        unsigned first;
    };
    DeviceBuffer<float> codes(kChunk);  // FP32 words hold TF32; FP16 and BF16 use half of them
    DeviceBuffer<Results> results(1);
    const Results start{0, 0xffffffffu};
    check(cudaMemcpy(results.ptr, &start, sizeof start, cudaMemcpyHostToDevice), "copy to device");
    const gpu::Values storage{codes.ptr, format_params(f), bits16};
    for (std::uint64_t first = 0; first < (1ull << 32); first += kChunk)
        storage_cast_kernel<<<1024, 256>>>(storage, static_cast<std::uint32_t>(first), kChunk, &results.ptr->count,
                                           &results.ptr->first);
    check(cudaGetLastError(), "kernel launch");
    Results got{};
    check(cudaMemcpy(&got, results.ptr, sizeof got, cudaMemcpyDeviceToHost), "copy from device");
    return {got.count, got.count ? got.first : 0u};
}

}  // namespace plab::cuda
