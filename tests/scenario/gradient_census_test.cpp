// gradient-census: the share of the FP32 twin's non-zero values that FP16
// rounds to zero (|x| <= 2^-25, ties to even), counted here element by element
// from downloaded tensors, independently of the telemetry's range fractions.
#include "scenario/scenario_test_util.h"

#include <cmath>

#include "engine/scenario/scenario_checks.h"

namespace plab {
namespace {

struct Tally {
    double flushed = 0, nonzero = 0;
    void add(const std::vector<float>& xs) {
        for (float x : xs) {
            if (x == 0.0f || !std::isfinite(x)) continue;
            nonzero += 1;
            flushed += std::fabs(x) <= std::ldexp(1.0f, -25);
        }
    }
    double share() const { return flushed / nonzero; }
};

void add_tensor(Backend& backend, const Tensor& t, Tally& tally) {
    std::vector<float> host(t.size());
    backend.download(t, host.data());
    tally.add(host);
}

TEST(ScenarioGradientCensus, VerdictsHold) {
    CpuBackend backend;
    scenario_test::expect_all_hold(check_gradient_census(backend, {}), "gradient-census");
}

TEST(ScenarioGradientCensus, BruteForceCountOfTheTwinsValues) {
    const RunConfig config = load_preset("gradient-census");
    CpuBackend backend;
    Trainer trainer(backend, config);
    Tally act_grads, weights;
    for (int s = 0; s < config.steps; ++s) {
        const StepRecord r = trainer.step();
        const Mlp& twin = *trainer.twin();
        for (int i = 0; i < twin.layer_count(); ++i) {
            add_tensor(backend, twin.linears()[static_cast<std::size_t>(i)].weight.value, weights);
            if (!r.acc) add_tensor(backend, twin.activation_grad(i), act_grads);  // evaluation overwrites the pass
        }
    }
    std::printf("[ measured ] FP16 flush share: activation grads %.4f, weights %.6f\n", act_grads.share(),
                weights.share());
    EXPECT_GE(act_grads.share(), 0.25);
    EXPECT_LE(weights.share(), 0.0001);
}

}  // namespace
}  // namespace plab
