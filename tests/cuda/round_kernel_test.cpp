// The GPU rounding kernel against the CPU engine, over all 2^32 FP32 inputs.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "engine/numeric/cast_array.h"
#include "engine/numeric/scalar_cast.h"
#include "format_test_name.h"
#include "kernels/device_info.h"
#include "kernels/round_kernel.h"

namespace plab {
namespace {

class CudaRound : public testing::TestWithParam<FormatId> {
protected:
    void SetUp() override {
        if (cuda::list_devices().empty()) GTEST_SKIP() << cuda::describe_devices();
    }
};

TEST_P(CudaRound, BitIdenticalToCpuOnAllInputs) {
    const FormatId f = GetParam();
    constexpr std::uint64_t kChunk = 1ull << 26;
    std::vector<float> in(kChunk), gpu(kChunk), cpu(kChunk);
    for (Overflow mode : {Overflow::saturate, Overflow::nan}) {
        for (std::uint64_t start = 0; start < (1ull << 32); start += kChunk) {
            for (std::uint64_t i = 0; i < kChunk; ++i) in[i] = bits_float(static_cast<std::uint32_t>(start + i));
            cuda::round_on_device(f, in.data(), gpu.data(), kChunk, mode);
            round_array(f, in.data(), cpu.data(), kChunk, mode);
            if (std::memcmp(gpu.data(), cpu.data(), kChunk * sizeof(float)) != 0) {
                std::uint64_t i = 0;
                while (float_bits(gpu[i]) == float_bits(cpu[i])) ++i;
                FAIL() << format_name(f) << " input 0x" << std::hex << float_bits(in[i]) << ": gpu 0x"
                       << float_bits(gpu[i]) << " cpu 0x" << float_bits(cpu[i]);
            }
        }
        if (!format_params(f).is_fp8) break;  // the mode only matters for FP8
    }
}

// What a tensor keeps of each input, through the fast casts.
TEST(CudaStorageCast, TensorsKeepTheSharedCastsBitsOnAllInputs) {
    if (cuda::list_devices().empty()) GTEST_SKIP() << cuda::describe_devices();
    for (FormatId f : {FormatId::fp16, FormatId::bf16, FormatId::tf32}) {
        const cuda::StorageCastDifferences d = cuda::storage_cast_differences(f);
        EXPECT_EQ(d.count, 0u) << format_name(f) << ": first at input 0x" << std::hex << d.first;
    }
}

INSTANTIATE_TEST_SUITE_P(AllFormats, CudaRound,
                         testing::Values(FormatId::fp32, FormatId::tf32, FormatId::fp16, FormatId::bf16,
                                         FormatId::e4m3, FormatId::e5m2),
                         test::format_test_name);

}  // namespace
}  // namespace plab
