#include "kernels/round_kernel.h"

#include <cuda_runtime.h>

#include <string>

#include "engine/common/error.h"
#include "engine/numeric/scalar_cast.h"

namespace plab::cuda {

namespace {

template <FormatId F>
__global__ void round_kernel(const float* in, float* out, std::size_t n, Overflow mode) {
    constexpr FormatParams p = format_params(F);
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = decode(p, encode(p, in[i], mode));
}

void check(cudaError_t status, const char* what) {
    if (status != cudaSuccess)
        throw Error(std::string("CUDA ") + what + " failed: " + cudaGetErrorString(status) +
                    "; use --backend cpu if this machine has no usable GPU");
}

// Frees a device buffer on every exit path.
struct DeviceBuffer {
    float* ptr = nullptr;
    explicit DeviceBuffer(std::size_t n) { check(cudaMalloc(&ptr, n * sizeof(float)), "cudaMalloc"); }
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
    DeviceBuffer in(n), out(n);
    check(cudaMemcpy(in.ptr, host_in, n * sizeof(float), cudaMemcpyHostToDevice), "copy to device");
    round_device_array(f, in.ptr, out.ptr, n, mode, nullptr);
    check(cudaMemcpy(host_out, out.ptr, n * sizeof(float), cudaMemcpyDeviceToHost), "copy from device");
}

}  // namespace plab::cuda
