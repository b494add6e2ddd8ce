#include "engine/backend/backend_choice.h"

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/common/error.h"

namespace plab {

namespace {

// The CUDA backend's factory, when the executable registered one.
CudaBackendFactory& cuda_factory() {
    static CudaBackendFactory factory;
    return factory;
}

// What the CUDA backends held when reset_device_peak() was last called.
std::uint64_t& device_bytes_at_reset() {
    static std::uint64_t bytes = 0;
    return bytes;
}

bool cuda_available() {
    const CudaBackendFactory& f = cuda_factory();
    return f.make && f.has_device && f.has_device();
}

}  // namespace

void set_cuda_backend_factory(CudaBackendFactory factory) { cuda_factory() = factory; }

void check_backend_choice(const std::string& choice) {
    if (choice != "auto" && choice != "cpu" && choice != "cuda")
        throw Error("--backend: '" + choice + "' is not a backend; allowed: auto|cpu|cuda");
    if (choice != "cuda") return;
    if (const std::string why = cuda_unavailable_reason(); !why.empty()) throw Error(why + "; use --backend cpu");
}

std::unique_ptr<Backend> make_run_backend(const std::string& choice) {
    if (backend_device(choice) == Device::cuda) return cuda_factory().make();
    return std::make_unique<CpuBackend>();
}

Device backend_device(const std::string& choice) {
    check_backend_choice(choice);
    return choice == "cuda" || (choice == "auto" && cuda_available()) ? Device::cuda : Device::cpu;
}

std::string cuda_unavailable_reason() {
    if (!cuda_factory().make) return "this build has no CUDA backend";
    if (!cuda_available()) return "no CUDA device found";
    return {};
}

std::optional<std::uint64_t> device_peak_bytes() {
    const CudaBackendFactory& f = cuda_factory();
    if (!f.peak_bytes) return std::nullopt;
    return f.peak_bytes() - device_bytes_at_reset();
}

std::uint64_t device_host_waits() {
    const CudaBackendFactory& f = cuda_factory();
    return f.host_waits ? f.host_waits() : 0;
}

void reset_device_peak() {
    const CudaBackendFactory& f = cuda_factory();
    if (!f.reset_peak || !f.peak_bytes) return;
    f.reset_peak();
    device_bytes_at_reset() = f.peak_bytes();  // the peak starts again from what is held
}

}  // namespace plab
