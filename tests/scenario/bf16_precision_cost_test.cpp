// bf16-precision-cost: without master weights BF16 weights lose far more of
// a regression's updates than FP16 weights and the run stalls above its
// twin; under autocast BF16 drifts from the twin several times as far as
// FP16. The numbers are measured again here from records of plain runs, and
// the premise, BF16's half ULP eight times FP16's, from the cast itself.
#include "scenario/scenario_test_util.h"

#include <algorithm>
#include <cmath>

#include "engine/numeric/fast_cast.h"
#include "engine/scenario/scenario_checks.h"

namespace plab {
namespace {

const std::vector<std::string> kBf16Pure = {"telemetry.hist_every=0"};
const std::vector<std::string> kFp16Pure = {"telemetry.hist_every=0", "precision.recipe=fp16-pure",
                                            "scaler.kind=dynamic"};
const std::vector<std::string> kAmpBf16 = {"telemetry.hist_every=0", "precision.recipe=amp-bf16"};
const std::vector<std::string> kAmpFp16 = {"telemetry.hist_every=0", "precision.recipe=amp-fp16",
                                           "scaler.kind=dynamic"};

// Mean lost_update_frac over the last quarter of the records, summed here.
double last_quarter_lost(const std::vector<StepRecord>& records) {
    const std::size_t quarter = records.size() / 4;
    double sum = 0;
    for (std::size_t i = records.size() - quarter; i < records.size(); ++i) sum += records[i].lost_update_frac;
    return sum / static_cast<double>(quarter);
}

double final_twin_ratio(const std::vector<StepRecord>& records) {
    const StepRecord& last = records.back();
    EXPECT_TRUE(last.test_loss && last.test_loss_ref) << "the last step is always evaluated";
    return static_cast<double>(last.test_loss.value_or(NAN)) / static_cast<double>(last.test_loss_ref.value_or(NAN));
}

// The largest rel_dist over the layers after step 10.
double distance_at_step_10(const std::vector<StepRecord>& records) {
    double d = 0;
    for (const LayerRecord& l : records.at(9).layers) d = std::max(d, static_cast<double>(l.weight_rel_dist));
    return d;
}

TEST(ScenarioBf16PrecisionCost, VerdictsHold) {
    CpuBackend backend;
    scenario_test::expect_all_hold(check_bf16_precision_cost(backend, {}), "bf16-precision-cost");
}

TEST(ScenarioBf16PrecisionCost, PureRecipesLostUpdatesAndTheStallFromRecords) {
    const RunConfig config = load_preset("bf16-precision-cost");
    ASSERT_EQ(config.precision.recipe, Recipe::bf16_pure);
    ASSERT_FALSE(config.precision.master_weights);
    ASSERT_EQ(config.data.kind, DatasetKind::sine);  // a regression: test loss, no accuracy

    const std::vector<StepRecord> bf16 = scenario_test::train_records(config.name, kBf16Pure);
    const std::vector<StepRecord> fp16 = scenario_test::train_records(config.name, kFp16Pure);
    ASSERT_EQ(bf16.size(), static_cast<std::size_t>(config.steps));
    ASSERT_EQ(fp16.size(), bf16.size());
    const double lost_bf16 = last_quarter_lost(bf16), lost_fp16 = last_quarter_lost(fp16);
    const double stall_bf16 = final_twin_ratio(bf16), stall_fp16 = final_twin_ratio(fp16);
    std::printf("[ measured ] late lost: bf16-pure %.4f, fp16-pure %.4f; test loss over twin: %.3fx, %.3fx\n",
                lost_bf16, lost_fp16, stall_bf16, stall_fp16);
    EXPECT_GT(lost_bf16, lost_fp16);
    EXPECT_GE((1 - lost_fp16) / (1 - lost_bf16), 3.0);  // FP16 weights take several times as many updates
    EXPECT_GE(stall_bf16, 2.0);
    EXPECT_LE(stall_fp16, 1.25);
    // Both runs' twins are the same FP32 run.
    for (std::size_t i = 0; i < bf16.size(); ++i) ASSERT_EQ(bf16[i].loss_ref, fp16[i].loss_ref) << "step " << i + 1;
}

TEST(ScenarioBf16PrecisionCost, AutocastDriftFromRecords) {
    const RunConfig config = load_preset("bf16-precision-cost");
    const std::vector<StepRecord> bf16 = scenario_test::train_records(config.name, kAmpBf16);
    const std::vector<StepRecord> fp16 = scenario_test::train_records(config.name, kAmpFp16);
    for (const auto* records : {&bf16, &fp16})
        for (std::size_t i = 0; i < 10; ++i) {
            ASSERT_FALSE((*records)[i].skipped) << "step " << i + 1;  // a skip, not the rounding, would move it
            ASSERT_EQ((*records)[i].lost_update_frac, 0.0f) << "FP32 masters keep every update";
        }
    const double d_bf16 = distance_at_step_10(bf16), d_fp16 = distance_at_step_10(fp16);
    std::printf("[ measured ] weight distance at step 10: AMP-BF16 %.4g, AMP-FP16 %.4g (%.2fx)\n", d_bf16, d_fp16,
                d_bf16 / d_fp16);
    EXPECT_GT(d_fp16, 0.0);
    EXPECT_GE(d_bf16, 4.0 * d_fp16);
}

// The premise: an update of 2^-10 of a weight is at least an FP16 ULP of it
// (at most 2^-10 of the weight) and below half a BF16 ULP (at least 2^-9 of
// it). Every BF16 weight from 2^-8 to 2^8 (16 binades of 128) keeps such an
// update in FP16 and loses it in BF16.
TEST(ScenarioBf16PrecisionCost, AnUpdateFp16KeepsBf16Loses) {
    int kept_fp16 = 0, lost_bf16 = 0, total = 0;
    for (std::uint32_t bits = 0x3b800000u; bits <= 0x43800000u; bits += 0x10000u) {  // BF16's bit patterns
        const float w = bits_float(bits);
        const float moved = w + std::ldexp(w, -10);  // exact in FP32: 18 significant bits
        ++total;
        kept_fp16 += round_fast(FormatId::fp16, moved) != w;
        lost_bf16 += round_fast(FormatId::bf16, moved) == w;
    }
    EXPECT_EQ(total, 16 * 128 + 1);
    EXPECT_EQ(kept_fp16, total);
    EXPECT_EQ(lost_bf16, total);
}

}  // namespace
}  // namespace plab
