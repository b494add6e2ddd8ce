#pragma once
// FP32 -> format -> FP32 rounding on the GPU, with the very scalar routine the
// CPU engine uses (engine/numeric/scalar_cast.h), so both agree bit for bit.
#include <cstddef>

#include "engine/numeric/format.h"

namespace plab::cuda {

// Rounds n host floats through the GPU; throws plab::Error when CUDA fails
// (no device, out of memory), naming the CUDA error.
void round_on_device(FormatId f, const float* host_in, float* host_out, std::size_t n, Overflow mode);

// Device-pointer form for the training backend: one launch on `stream`.
void round_device_array(FormatId f, const float* device_in, float* device_out, std::size_t n, Overflow mode,
                        void* stream);

}  // namespace plab::cuda
