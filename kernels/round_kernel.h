#pragma once
// FP32 -> format -> FP32 rounding on the GPU, with the very scalar routine the
// CPU engine uses (engine/numeric/scalar_cast.h), so both agree bit for bit.
#include <cstddef>
#include <cstdint>

#include "engine/numeric/format.h"

namespace plab::cuda {

// Rounds n host floats through the GPU; throws plab::Error when CUDA fails
// (no device, out of memory), naming the CUDA error.
void round_on_device(FormatId f, const float* host_in, float* host_out, std::size_t n, Overflow mode);

// Device-pointer form for the training backend: one launch on `stream`.
void round_device_array(FormatId f, const float* device_in, float* device_out, std::size_t n, Overflow mode,
                        void* stream);

// The FP32 inputs that a tensor stores (gpu::Values: FP16 and BF16 in their
// own 16 bits, TF32 in FP32 words, through the fast casts of fast_cast.h) and
// gives back otherwise than the shared cast rounds them on the GPU: how many
// of all 2^32, and the first (0 when none). Throws plab::Error for another
// format or when CUDA fails.
struct StorageCastDifferences {
    std::uint64_t count = 0;
    std::uint32_t first = 0;
};
StorageCastDifferences storage_cast_differences(FormatId f);

}  // namespace plab::cuda
