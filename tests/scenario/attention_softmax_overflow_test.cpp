// attention-softmax-overflow: the attention block's softmax overflows FP16
// off the FP32 list and runs finite on it.
#include "scenario/scenario_test_util.h"

#include <cmath>

#include "engine/scenario/run_to_end.h"
#include "engine/scenario/scenario_checks.h"

namespace plab {
namespace {


TEST(ScenarioAttentionSoftmaxOverflow, VerdictsHold) {
    CpuBackend backend;
    scenario_test::expect_all_hold(check_attention_softmax_overflow(backend, {}), "attention-softmax-overflow");
}

TEST(ScenarioAttentionSoftmaxOverflow, RecordsOverflowInFp16AndNotInFp32) {
    TrainerOptions trace;
    trace.trace_nan = true;
    RunConfig config = load_preset("attention-softmax-overflow");
    CpuBackend backend;
    Trainer fp16(backend, config, trace);
    std::vector<StepRecord> fp16_records;
    for (int i = 0; i < config.steps; ++i) fp16_records.push_back(fp16.step());
    ASSERT_TRUE(fp16.nan_report().has_value());
    const NanReport& nan = *fp16.nan_report();
    EXPECT_EQ(nan.phase, Phase::forward);
    EXPECT_EQ(nan.layer, "attn");
    EXPECT_EQ(nan.op, "softmax");
    EXPECT_EQ(nan.format, FormatId::fp16);
    EXPECT_GT(static_cast<double>(nan.input_amax) * config.model.attention_logit_scale, 65504.0);
    int skipped = 0;
    for (const StepRecord& r : fp16_records) skipped += r.skipped;

    const std::vector<StepRecord> fp32 =
        scenario_test::train_records("attention-softmax-overflow", {kAutocastFp32OpsSetting});
    int overflows = 0, forward_bad = 0;
    for (const StepRecord& r : fp32) {
        overflows += r.found_inf;
        forward_bad += !std::isfinite(r.loss);
    }
    std::printf("[ measured ] FP16 softmax: NaN at step %lld, scores amax %.4g, skipped %d/%zu, acc %.4f (twin %.4f); "
                "FP32 softmax: overflows %d, acc %.4f (twin %.4f)\n",
                static_cast<long long>(nan.step), static_cast<double>(nan.input_amax), skipped, fp16_records.size(),
                static_cast<double>(*fp16_records.back().acc), static_cast<double>(*fp16_records.back().acc_ref),
                overflows, static_cast<double>(*fp32.back().acc), static_cast<double>(*fp32.back().acc_ref));
    EXPECT_GE(skipped, static_cast<int>(0.9 * static_cast<double>(fp16_records.size())));
    EXPECT_GE(*fp16_records.back().acc_ref - *fp16_records.back().acc, 0.2f);
    EXPECT_EQ(forward_bad, 0);
    EXPECT_LE(overflows, 3);  // backward overflows the dynamic scaler skips, if any
    EXPECT_LE(std::fabs(*fp32.back().acc_ref - *fp32.back().acc), 0.03f);
}

}  // namespace
}  // namespace plab
