#pragma once
// The CUDA backend as the engine's front ends reach it: what a program built
// with kernels/ registers at start-up (set_cuda_backend_factory), and what a
// test registers to pick backends by name as those programs do.
#include "engine/backend/backend_choice.h"

namespace plab {

// make_cuda_backend, cuda_device_present and the process-wide counters of
// kernels/cuda_backend.h.
CudaBackendFactory cuda_backend_factory();

}  // namespace plab
