// The CUDA backend's device, storage and transfers. The ops live in one file
// per group (cuda_*_ops.cu, cuda_gemm.cu); cuda_common.cuh is what they share.
#include "kernels/cuda_backend.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstring>

#include "engine/common/number_text.h"
#include "kernels/cuda_common.cuh"
#include "kernels/cuda_lt_gemm.cuh"
#include "kernels/device_info.h"
#include "kernels/round_kernel.h"

namespace plab {

using gpu::check_cublas;
using gpu::check_cuda;
using gpu::device_floats;

namespace {

constexpr const char* kNoDevice = "no CUDA device found; use --backend cpu";

// FP32 device memory, freed with the last tensor that shares it.
class DeviceBuffer final : public Buffer {
public:
    DeviceBuffer(std::size_t bytes, const std::string& gpu_name) {
        if (bytes == 0) return;
        const cudaError_t status = cudaMalloc(&ptr_, bytes);
        if (status == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();  // not sticky: clear it so later checks do not see it
            throw OutOfMemory("cannot allocate " + mib_text(bytes) + " MiB on " + gpu_name + ": out of device memory");
        }
        check_cuda(status, "cudaMalloc");
    }
    ~DeviceBuffer() override { cudaFree(ptr_); }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    Device device() const override { return Device::cuda; }
    void* data() override { return ptr_; }

private:
    void* ptr_ = nullptr;
};

// t's values rounded to its dtype in place: the kernel tests/cuda/round_kernel_test.cpp
// checks bit for bit against the CPU on all 2^32 inputs.
void round_in_place(Tensor& t, cudaStream_t stream, const char* op) {
    if (t.dtype() == FormatId::fp32 || t.size() == 0) return;
    float* p = device_floats(t, op);
    cuda::round_device_array(t.dtype(), p, p, t.size(), Overflow::saturate, stream);
}

}  // namespace

bool cuda_device_present() { return !cuda::list_devices().empty(); }

std::unique_ptr<Backend> make_cuda_backend() {
    if (!cuda_device_present()) throw Error(kNoDevice);
    return std::make_unique<CudaBackend>();
}

CudaBackend::CudaBackend() : scratch_(gpu::kScratchSlots) {
    const auto devices = cuda::list_devices();
    if (devices.empty()) throw Error(kNoDevice);
    name_ = devices.front().name;
    try {
        check_cuda(cudaSetDevice(devices.front().index), "cudaSetDevice");
        check_cuda(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
        check_cublas(cublasCreate(&blas_), "cublasCreate");
        check_cublas(cublasSetStream(blas_, stream_), "cublasSetStream");
        lt_ = std::make_unique<gpu::LtBiasGemm>();
        // cuBLAS's workspace is ours, made here: left to itself cuBLAS would
        // allocate one on first use, which a captured step cannot do, and a
        // step captured without one would pick other algorithms (other bits)
        // than the same step run op by op. cuBLASLt gets the same buffer
        // (both run in stream order, never at once).
        void* workspace = scratch(gpu::kGemmWorkspace, gpu::kGemmWorkspaceBytes);
        check_cublas(cublasSetWorkspace(blas_, workspace, gpu::kGemmWorkspaceBytes), "cublasSetWorkspace");
        // Reductions inside a GEMM stay in the FP32 accumulator (our outputs
        // are FP32 anyway; this rules out any cheaper internal path).
        check_cublas(cublasSetMathMode(blas_, static_cast<cublasMath_t>(
                                                  CUBLAS_DEFAULT_MATH |
                                                  CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION)),
                     "cublasSetMathMode");
    } catch (...) {
        release();
        throw;
    }
}

CudaBackend::~CudaBackend() {
    // Buffers free themselves; wait for the work that may still use them.
    if (stream_) cudaStreamSynchronize(stream_);
    telemetry_.pending.clear();
    telemetry_.device_chunks.clear();
    scratch_.clear();
    tables_.clear();
    release();
}

namespace gpu {
namespace {
std::atomic<std::uint64_t> host_waits{0};
}
std::uint64_t next_host_wait() { return ++host_waits; }

int multiprocessors() {
    static const int count = [] {
        int device = 0, n = 0;
        if (cudaGetDevice(&device) != cudaSuccess ||
            cudaDeviceGetAttribute(&n, cudaDevAttrMultiProcessorCount, device) != cudaSuccess || n < 1)
            return 64;  // a count that serves any device
        return n;
    }();
    return count;
}
}  // namespace gpu

std::uint64_t CudaBackend::host_waits() const { return gpu::host_waits.load(); }

void CudaBackend::release() {
    release_telemetry();
    lt_.reset();
    if (blas_) cublasDestroy(blas_);
    if (stream_) cudaStreamDestroy(stream_);
    blas_ = nullptr;
    stream_ = nullptr;
}

void* CudaBackend::scratch(int slot, std::size_t bytes) {
    Tensor& s = scratch_.at(static_cast<std::size_t>(slot));
    if (s.size() * sizeof(float) < bytes) {
        // The old buffer may still be read by queued work: finish it first.
        gpu::wait_for_stream(stream_, "scratch resize");
        s = Tensor();
        s = allocate({1, static_cast<int>((bytes + sizeof(float) - 1) / sizeof(float))}, FormatId::fp32);
    }
    return s.raw();
}

namespace {
// A training step keeps two tables per slot (the mixed run's and the twin's),
// and an evaluation or a fork a few more: room for all without evicting.
constexpr std::size_t kTablesPerSlot = 8;
}

const void* CudaBackend::device_table(int slot, const TableKey& key, const void* host, std::size_t bytes,
                                      const char* op) {
    if (tables_.empty()) tables_.resize(gpu::kScratchSlots);
    std::vector<CachedTable>& kept = tables_.at(static_cast<std::size_t>(slot));
    for (CachedTable& t : kept)
        if (t.key == key.words) {
            t.last_use = ++table_clock_;
            return t.device.raw();
        }
    if (kept.size() >= kTablesPerSlot) {
        // The least recently used goes; queued work may still read it.
        gpu::wait_for_stream(stream_, op);
        kept.erase(std::min_element(kept.begin(), kept.end(), [](const CachedTable& a, const CachedTable& b) {
            return a.last_use < b.last_use;
        }));
    }
    CachedTable t;
    t.key = key.words;
    t.device = allocate({1, static_cast<int>((bytes + sizeof(float) - 1) / sizeof(float))}, FormatId::fp32);
    t.last_use = ++table_clock_;
    if (bytes > 0) {
        void* staged = stage_bytes(bytes);
        std::memcpy(staged, host, bytes);
        check_cuda(cudaMemcpyAsync(t.device.raw(), staged, bytes, cudaMemcpyHostToDevice, stream_), op);
    }
    kept.push_back(std::move(t));
    return kept.back().device.raw();
}

Tensor CudaBackend::device_tensor(Shape shape, FormatId dtype) {
    gpu::require(shape.rows >= 0 && shape.cols >= 0,
                 [&] { return "allocate: negative shape " + shape_text(shape); });
    return Tensor(shape, dtype, std::make_shared<DeviceBuffer>(shape.size() * sizeof(float), name_));
}

Tensor CudaBackend::allocate(Shape shape, FormatId dtype) {
    // A tensor made inside a captured step would be zeroed again by every replay.
    gpu::refuse_while_capturing(stream_, "allocate");
    Tensor t = device_tensor(shape, dtype);
    ++allocations_;
    // Zero-filled, as the interface promises (async on our stream: ordered
    // before every op that can see the tensor).
    if (t.size()) check_cuda(cudaMemsetAsync(t.raw(), 0, t.size() * sizeof(float), stream_), "cudaMemsetAsync");
    return t;
}

void CudaBackend::upload(const float* host, Tensor& t) {
    if (t.size() == 0) return;
    float* p = device_floats(t, "upload");
    check_cuda(cudaMemcpyAsync(p, host, t.size() * sizeof(float), cudaMemcpyHostToDevice, stream_), "upload");
    round_in_place(t, stream_, "upload");
    // The caller may reuse `host` at once: pageable copies are staged, but
    // only a synchronize promises that the staging is done.
    gpu::wait_for_stream(stream_, "upload");
}

// Through pinned staging, so the copy is asynchronous and `host` free at once.
void CudaBackend::queue_upload(const float* host, Tensor& t) {
    if (t.size() == 0) return;
    float* p = device_floats(t, "queue_upload");
    const std::size_t bytes = t.size() * sizeof(float);
    void* staged = stage_bytes(bytes);
    std::memcpy(staged, host, bytes);
    if (capture_uploads_) capture_uploads_->push_back({host, staged, bytes});  // each replay copies again
    check_cuda(cudaMemcpyAsync(p, staged, bytes, cudaMemcpyHostToDevice, stream_), "queue_upload");
    round_in_place(t, stream_, "queue_upload");
}

void CudaBackend::download(const Tensor& t, float* host) {
    if (t.size() == 0) return;
    const float* p = device_floats(t, "download");
    check_cuda(cudaMemcpyAsync(host, p, t.size() * sizeof(float), cudaMemcpyDeviceToHost, stream_), "download");
    gpu::wait_for_stream(stream_, "download");
}

void CudaBackend::convert(const Tensor& src, Tensor& dst) {
    gpu::require_same_shape(src, dst, "convert");
    if (src.size() == 0) return;
    const float* in = device_floats(src, "convert");
    float* out = device_floats(dst, "convert");
    if (in != out)
        check_cuda(cudaMemcpyAsync(out, in, src.size() * sizeof(float), cudaMemcpyDeviceToDevice, stream_),
                   "convert");
    round_in_place(dst, stream_, "convert");
}

}  // namespace plab
