// tf32-drift: TF32 rounds exactly what FP16 rounds in a matmul's inputs,
// short of FP16's range. One GEMM of values on FP32's grid: TF32's result
// equals FP16's wherever no input leaves FP16's normal range, and where one
// does (a value below 2^-14) FP16 loses it and TF32 does not.
#include "scenario/scenario_test_util.h"

#include "engine/numeric/fast_cast.h"
#include "engine/scenario/scenario_checks.h"

namespace plab {
namespace {

TEST(ScenarioTf32Drift, VerdictsHold) {
    CpuBackend backend;
    scenario_test::expect_all_hold(check_tf32_drift(backend, {}), "tf32-drift");
}

// TF32 and FP16 round a value in FP16's normal range to the same 10-bit
// mantissa; below it FP16 rounds to its subnormal grid or to 0 and TF32 keeps
// 10 bits. Checked here on 2^20 values spread over FP32's exponents.
TEST(ScenarioTf32Drift, Tf32IsFp16sMantissaWithFp32sRange) {
    int same = 0, in_range = 0, kept_below = 0, below = 0;
    for (std::uint32_t i = 0; i < (1u << 20); ++i) {
        const float x = bits_float(0x30000000u + i * 0x200u + (i % 512u));  // 2^-31 .. 2^33
        const float tf32 = round_fast(FormatId::tf32, x), fp16 = round_fast(FormatId::fp16, x);
        if (x >= 0x1p-14f && fp16 <= 65504.0f) {
            ++in_range;
            same += tf32 == fp16;
        } else if (x < 0x1p-14f) {
            ++below;
            kept_below += tf32 != 0.0f && std::abs(tf32 - x) <= x * 0x1p-11f;
        }
    }
    EXPECT_GT(in_range, 0);
    EXPECT_EQ(same, in_range);
    EXPECT_GT(below, 0);
    EXPECT_EQ(kept_below, below);
}

}  // namespace
}  // namespace plab
