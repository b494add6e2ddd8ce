// overflow-nan: the logits pass 65504 in FP16; the tracer names the forward
// matmul of fc4; fc4 in FP32, or BF16, runs finite.
#include "scenario/scenario_test_util.h"

#include "engine/scenario/scenario_checks.h"

namespace plab {
namespace {

TEST(ScenarioOverflowNan, VerdictsHold) {
    CpuBackend backend;
    scenario_test::expect_all_hold(check_overflow_nan(backend, {}), "overflow-nan");
}

TEST(ScenarioOverflowNan, TracerNamesTheLogitsMatmulAtStep31) {
    const RunConfig config = load_preset("overflow-nan");
    ASSERT_EQ(config.scaler.kind, ScalerKind::none);  // the overflow is not a scaled gradient's
    CpuBackend backend;
    Trainer trainer(backend, config, {.trace_nan = true, .boundary_every = 0, .boundary_resolution = 64});
    while (!trainer.nan_report() && trainer.steps_done() < config.steps) trainer.step();
    ASSERT_TRUE(trainer.nan_report().has_value());
    const NanReport& r = *trainer.nan_report();
    std::printf("[ measured ] first non-finite: step %lld, %s\n", static_cast<long long>(r.step), r.diagnosis.c_str());
    EXPECT_EQ(r.step, 31);
    EXPECT_EQ(r.phase, Phase::forward);
    EXPECT_EQ(r.layer, "fc4");
    EXPECT_EQ(r.op, "matmul");
    EXPECT_EQ(r.format, FormatId::fp16);
    EXPECT_GT(r.infs, 0);
    EXPECT_LT(r.input_amax, 65504.0f);  // finite inputs: the matmul's sum is what overflows
}

TEST(ScenarioOverflowNan, LogitsInFp32OrBf16RunFinite) {
    const TrainerOptions trace{.trace_nan = true, .boundary_every = 0, .boundary_resolution = 64};
    for (const std::vector<std::string>& change : {std::vector<std::string>{"precision.layer_overrides.fc4=fp32"},
                                                   std::vector<std::string>{"precision.recipe=amp-bf16"}}) {
        SCOPED_TRACE(change.front());
        const std::vector<StepRecord> records = scenario_test::train_records("overflow-nan", change, trace);
        ASSERT_EQ(records.size(), 200u);
        for (const StepRecord& r : records) {
            ASSERT_FALSE(r.found_inf) << "step " << r.step;
            ASSERT_TRUE(std::isfinite(r.loss)) << "step " << r.step;
        }
    }
}

}  // namespace
}  // namespace plab
