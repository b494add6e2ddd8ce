// batch-norm-fp16: the verdicts, and which of bn1's features turn NaN,
// predicted from the FP32 twin's own statistics of the same batch: in FP16 a
// feature's sum over the 1024 rows passes 65504 when its mean passes 64, and
// then its mean, mean^2 and mean of squares are Inf and its variance NaN;
// below that its sum stays finite (its squares still overflow, which gives
// rstd 0, not NaN).
#include "scenario/scenario_test_util.h"

#include <cmath>
#include <vector>

#include "engine/model/mlp.h"
#include "engine/scenario/scenario_checks.h"

namespace plab {
namespace {

TEST(ScenarioBatchNormFp16, VerdictsHold) {
    CpuBackend backend;
    scenario_test::expect_all_hold(check_batch_norm_fp16(backend, {}), "batch-norm-fp16");
}

std::vector<float> host_values(Backend& backend, const Tensor& t) {
    std::vector<float> v(t.size());
    backend.download(t, v.data());
    return v;
}

TEST(ScenarioBatchNormFp16, NanExactlyWhereTheTwinsFeatureSumPasses65504) {
    RunConfig config = load_preset("batch-norm-fp16");
    config.telemetry.hist_every = 0;
    CpuBackend backend;
    Trainer trainer(backend, config);
    const StepRecord r = trainer.step();
    EXPECT_TRUE(r.skipped);
    // From (0, 1), one step of momentum 0.1 leaves a tenth of the batch mean.
    const auto& twin = dynamic_cast<const Mlp&>(*trainer.twin_network());
    const std::vector<float> twin_mean = host_values(backend, twin.batch_norms()[0].running_mean);
    const std::vector<float> rstd = host_values(backend, trainer.model().batch_norms()[0].last_rstd());
    const double rows = config.batch_size;
    int predicted_nan = 0, predicted_finite = 0;
    for (std::size_t j = 0; j < rstd.size(); ++j) {
        const double sum = std::abs(twin_mean[j] / 0.1 * rows);
        SCOPED_TRACE("feature " + std::to_string(j) + ", twin's sum " + std::to_string(sum));
        // Clear of the boundary: FP16's partial sums and fc1's FP16 output
        // move the sum by far less than 5%.
        if (sum > 1.05 * 65504) {
            EXPECT_TRUE(std::isnan(rstd[j]));
            ++predicted_nan;
        } else if (sum < 0.95 * 65504) {
            EXPECT_FALSE(std::isnan(rstd[j]));
            ++predicted_finite;
        }
    }
    std::printf("[ measured ] bn1 features predicted NaN %d, not NaN %d of %zu\n", predicted_nan, predicted_finite,
                rstd.size());
    EXPECT_GE(predicted_nan, 5);
    EXPECT_GE(predicted_finite, 5);
}

}  // namespace
}  // namespace plab
