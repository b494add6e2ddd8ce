#pragma once
// Which backend a run trains on: the CPU's exact emulation, or the CUDA
// backend when the executable was built with it and a device is present.
// The engine links no CUDA: an executable built with kernels/ registers its
// factory at start-up (set_cuda_backend_factory); every front end then picks
// by name (make_run_backend), with the same messages.
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "engine/tensor/tensor.h"

namespace plab {

class Backend;

// The CUDA backend, for executables built with it. `make` throws
// plab::Error when there is no device; `has_device` never throws.
struct CudaBackendFactory {
    std::unique_ptr<Backend> (*make)() = nullptr;
    bool (*has_device)() = nullptr;
    std::uint64_t (*peak_bytes)() = nullptr;  // cuda_peak_tensor_bytes
    void (*reset_peak)() = nullptr;           // cuda_reset_peak_tensor_bytes
    std::uint64_t (*host_waits)() = nullptr;  // cuda_host_waits
};
void set_cuda_backend_factory(CudaBackendFactory factory);

// plab::Error unless `choice` is auto, cpu or cuda, and for cuda where it
// cannot run ("this build has no CUDA backend; use --backend cpu", "no CUDA
// device found; use --backend cpu"): bad input, found before anything runs.
void check_backend_choice(const std::string& choice);
// The backend a --backend value names: cpu, cuda, or auto (cuda when a
// device is present, else cpu); check_backend_choice's errors first.
std::unique_ptr<Backend> make_run_backend(const std::string& choice);
// The device make_run_backend(choice) trains on, without making a backend:
// what a front end sizes its work by (a sweep's workers); the same errors.
Device backend_device(const std::string& choice);
// Why cuda cannot run here ("this build has no CUDA backend", "no CUDA
// device found"); empty when it can.
std::string cuda_unavailable_reason();
// The device bytes the CUDA backends' tensors and scratch took at most since
// reset_device_peak(), beyond what they held then; none in a build without CUDA.
std::optional<std::uint64_t> device_peak_bytes();
void reset_device_peak();
// Times the host has waited for a device so far (stream and event
// synchronizes of every CUDA backend); 0 in a build without CUDA. A training
// step on a GPU should add one, at its finish; on the CPU nothing waits.
std::uint64_t device_host_waits();

}  // namespace plab
