#pragma once
// The CPU's own conversion instructions, called directly (not through the
// engine), as an independent reference for the casts.
#include <cstddef>
#include <cstdint>

namespace plab::test {

bool cpu_has_f16c();
bool cpu_has_avx512_bf16();

// vcvtps2ph with round-to-nearest-even. Requires cpu_has_f16c().
void hardware_fp32_to_fp16(const float* in, std::uint16_t* out, std::size_t n);
// vcvtph2ps. Requires cpu_has_f16c().
void hardware_fp16_to_fp32(const std::uint16_t* in, float* out, std::size_t n);
// vcvtneps2bf16 (treats FP32 subnormal inputs as zero). Requires cpu_has_avx512_bf16().
void hardware_fp32_to_bf16(const float* in, std::uint16_t* out, std::size_t n);

}  // namespace plab::test
