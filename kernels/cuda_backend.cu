// The CUDA backend's device, storage and transfers. The ops live in one file
// per group (cuda_*_ops.cu, cuda_gemm.cu); cuda_common.cuh is what they share.
#include "kernels/cuda_backend.h"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "engine/common/number_text.h"
#include "kernels/cuda_common.cuh"
#include "kernels/cuda_lt_gemm.cuh"
#include "kernels/device_gate.h"
#include "kernels/device_info.h"
#include "kernels/round_kernel.h"

namespace plab {

using gpu::check_cublas;
using gpu::check_cuda;
using gpu::device_floats;

namespace {

constexpr const char* kNoDevice = "no CUDA device found; use --backend cpu";

// What DeviceBuffers hold now, and the most they held at once (cuda_peak_tensor_bytes).
std::atomic<std::uint64_t> held_bytes{0};
std::atomic<std::uint64_t> peak_bytes{0};

void note_held(std::uint64_t bytes) {
    const std::uint64_t now = held_bytes += bytes;
    std::uint64_t peak = peak_bytes.load();
    while (now > peak && !peak_bytes.compare_exchange_weak(peak, now)) {
    }
}

// Device memory, freed with the last tensor that shares it: FP32 words, or
// a 16-bit format's own bits (element_bytes 2).
class DeviceBuffer final : public Buffer {
public:
    DeviceBuffer(std::size_t elements, std::size_t element_bytes, const std::string& gpu_name)
        : element_bytes_(element_bytes) {
        const std::size_t bytes = elements * element_bytes;
        if (bytes == 0) return;
        const gpu::DeviceGateScope gate;  // not while another thread captures (device_gate.h)
        const cudaError_t status = cudaMalloc(&ptr_, bytes);
        if (status == cudaErrorMemoryAllocation) {
            (void)cudaGetLastError();  // not sticky: clear it so later checks do not see it
            throw OutOfMemory("cannot allocate " + mib_text(bytes) + " MiB on " + gpu_name + ": out of device memory");
        }
        check_cuda(status, "cudaMalloc");
        bytes_ = bytes;
        note_held(bytes);
    }
    ~DeviceBuffer() override {
        if (ptr_) {
            const gpu::DeviceGateScope gate;
            cudaFree(ptr_);
        }
        held_bytes -= bytes_;
    }
    DeviceBuffer(const DeviceBuffer&) = delete;
    DeviceBuffer& operator=(const DeviceBuffer&) = delete;

    Device device() const override { return Device::cuda; }
    void* data() override { return ptr_; }
    std::size_t element_bytes() const override { return element_bytes_; }

private:
    void* ptr_ = nullptr;
    std::size_t element_bytes_;
    std::size_t bytes_ = 0;
};

bool is_16bit(FormatId f) { return f == FormatId::fp16 || f == FormatId::bf16; }

// PLAB_CUDA_STORAGE: native (FP16 and BF16 tensors in 16 bits, the default)
// or fp32 (every tensor in FP32 words: the values are the same, the bytes twice).
bool native_16bit_from_environment() {
    const char* value = std::getenv("PLAB_CUDA_STORAGE");
    if (value == nullptr || std::strcmp(value, "native") == 0) return true;
    if (std::strcmp(value, "fp32") == 0) return false;
    throw Error(std::string("PLAB_CUDA_STORAGE: \"") + value + "\" is not a storage; allowed: native, fp32");
}

// t's values rounded to its dtype in place: the kernel tests/cuda/round_kernel_test.cpp
// checks bit for bit against the CPU on all 2^32 inputs.
void round_in_place(Tensor& t, cudaStream_t stream, const char* op) {
    if (t.dtype() == FormatId::fp32 || t.size() == 0 || t.element_bytes() != sizeof(float)) return;
    float* p = device_floats(t, op);
    cuda::round_device_array(t.dtype(), p, p, t.size(), Overflow::saturate, stream);
}

}  // namespace

void encode_codes(FormatId f, const float* in, std::size_t n, std::uint16_t* codes) {
    const FormatParams p = format_params(f);
    for (std::size_t i = 0; i < n; ++i) codes[i] = static_cast<std::uint16_t>(encode(p, in[i]));
}

void decode_codes(FormatId f, const std::uint16_t* codes, std::size_t n, float* out) {
    const FormatParams p = format_params(f);
    for (std::size_t i = 0; i < n; ++i) out[i] = decode(p, codes[i]);
}

void QueuedUpload::copy() const {
    if (codes == FormatId::fp32)
        std::memcpy(staged, host, bytes);
    else
        encode_codes(codes, static_cast<const float*>(host), bytes / sizeof(std::uint16_t),
                     static_cast<std::uint16_t*>(staged));
}

bool cuda_device_present() { return !cuda::list_devices().empty(); }

std::uint64_t cuda_peak_tensor_bytes() { return peak_bytes.load(); }
void cuda_reset_peak_tensor_bytes() { peak_bytes = held_bytes.load(); }

std::unique_ptr<Backend> make_cuda_backend() {
    if (!cuda_device_present()) throw Error(kNoDevice);
    return std::make_unique<CudaBackend>();
}

namespace {

// The device a CUDA backend runs on; plab::Error when there is none.
cuda::DeviceInfo first_device() {
    const auto devices = cuda::list_devices();
    if (devices.empty()) throw Error(kNoDevice);
    return devices.front();
}

}  // namespace

CudaBackend::CudaBackend() : CudaBackend(first_device()) {}

CudaBackend::CudaBackend(const cuda::DeviceInfo& device)
    : Backend(Device::cuda, device.name),
      native_16bit_(native_16bit_from_environment()),
      scratch_(gpu::kScratchSlots) {
    const gpu::DeviceGateScope gate;  // the stream, the handles and the workspace (device_gate.h)
    try {
        check_cuda(cudaSetDevice(device.index), "cudaSetDevice");
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

std::uint64_t cuda_host_waits() { return gpu::host_waits.load(); }

void CudaBackend::release() {
    const gpu::DeviceGateScope gate;
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

const void* CudaBackend::device_table(int slot, const TableKey& key, const void* host, std::size_t bytes,
                                      const char* op) {
    if (tables_.empty()) tables_.resize(gpu::kScratchSlots);
    auto make = [&](const std::vector<std::uint64_t>&) {
        Tensor device = allocate({1, static_cast<int>((bytes + sizeof(float) - 1) / sizeof(float))}, FormatId::fp32);
        if (bytes > 0) {
            void* staged = stage_bytes(bytes);
            std::memcpy(staged, host, bytes);
            check_cuda(cudaMemcpyAsync(device.raw(), staged, bytes, cudaMemcpyHostToDevice, stream_), op);
        }
        return device;
    };
    // Queued work may still read the table that is dropped.
    auto before_drop = [&](const std::vector<std::uint64_t>&, Tensor&) { gpu::wait_for_stream(stream_, op); };
    return tables_.at(static_cast<std::size_t>(slot)).use(key.words, make, before_drop).raw();
}

Tensor CudaBackend::device_tensor(Shape shape, FormatId dtype) {
    gpu::require(shape.rows >= 0 && shape.cols >= 0,
                 [&] { return "allocate: negative shape " + shape_text(shape); });
    return Tensor(shape, dtype, std::make_shared<DeviceBuffer>(shape.size(), sizeof(float), name()));
}

Tensor CudaBackend::allocate(Shape shape, FormatId dtype) {
    // A tensor made inside a captured step would be zeroed again by every replay.
    gpu::refuse_while_capturing(stream_, "allocate");
    gpu::require(shape.rows >= 0 && shape.cols >= 0,
                 [&] { return "allocate: negative shape " + shape_text(shape); });
    const std::size_t element = native_16bit_ && is_16bit(dtype) ? sizeof(std::uint16_t) : sizeof(float);
    allocated_16bit_ = allocated_16bit_ || is_16bit(dtype);
    Tensor t(shape, dtype, std::make_shared<DeviceBuffer>(shape.size(), element, name()));
    ++allocations_;
    // Zero-filled, as the interface promises (async on our stream: ordered
    // before every op that can see the tensor). All-zero bits are +0 in every format.
    if (t.size()) check_cuda(cudaMemsetAsync(t.raw(), 0, t.size() * element, stream_), "cudaMemsetAsync");
    return t;
}

void CudaBackend::set_native_16bit(bool native) {
    gpu::require(!allocated_16bit_, [] {
        return std::string("set_native_16bit: the storage is chosen before the first FP16 or BF16 tensor");
    });
    native_16bit_ = native;
}

void CudaBackend::upload(const float* host, Tensor& t) {
    if (t.size() == 0) return;
    if (t.element_bytes() == sizeof(std::uint16_t)) {  // encoded on the host by the shared cast
        gpu::require_on_device(t, "upload");
        std::vector<std::uint16_t> codes(t.size());
        encode_codes(t.dtype(), host, t.size(), codes.data());
        check_cuda(cudaMemcpyAsync(t.raw(), codes.data(), codes.size() * sizeof(std::uint16_t), cudaMemcpyHostToDevice,
                                   stream_),
                   "upload");
        gpu::wait_for_stream(stream_, "upload");
        return;
    }
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
    gpu::require_on_device(t, "queue_upload");
    const bool codes = t.element_bytes() == sizeof(std::uint16_t);
    const std::size_t bytes = t.size() * t.element_bytes();
    const QueuedUpload upload{host, stage_bytes(bytes), bytes, codes ? t.dtype() : FormatId::fp32};
    upload.copy();
    if (capture_uploads_) capture_uploads_->push_back(upload);  // each replay copies again
    check_cuda(cudaMemcpyAsync(t.raw(), upload.staged, bytes, cudaMemcpyHostToDevice, stream_), "queue_upload");
    round_in_place(t, stream_, "queue_upload");
}

void CudaBackend::download(const Tensor& t, float* host) {
    if (t.size() == 0) return;
    if (t.element_bytes() == sizeof(std::uint16_t)) {
        gpu::require_on_device(t, "download");
        std::vector<std::uint16_t> codes(t.size());
        check_cuda(cudaMemcpyAsync(codes.data(), t.raw(), codes.size() * sizeof(std::uint16_t), cudaMemcpyDeviceToHost,
                                   stream_),
                   "download");
        gpu::wait_for_stream(stream_, "download");
        decode_codes(t.dtype(), codes.data(), codes.size(), host);
        return;
    }
    const float* p = device_floats(t, "download");
    check_cuda(cudaMemcpyAsync(host, p, t.size() * sizeof(float), cudaMemcpyDeviceToHost, stream_), "download");
    gpu::wait_for_stream(stream_, "download");
}

void CudaBackend::convert(const Tensor& src, Tensor& dst) {
    gpu::require_same_shape(src, dst, "convert");
    if (src.size() == 0) return;
    if (src.element_bytes() != sizeof(float) || dst.element_bytes() != sizeof(float)) {
        const gpu::Values in = gpu::device_values(src, "convert");
        const gpu::Values out = gpu::device_values(dst, "convert");
        gpu::for_each(src.size(), stream_, "convert", [=] __device__(std::size_t i) { out.store(i, in[i]); });
        return;
    }
    const float* in = device_floats(src, "convert");
    float* out = device_floats(dst, "convert");
    if (in != out)
        check_cuda(cudaMemcpyAsync(out, in, src.size() * sizeof(float), cudaMemcpyDeviceToDevice, stream_),
                   "convert");
    round_in_place(dst, stream_, "convert");
}

}  // namespace plab
