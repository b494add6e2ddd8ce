// tiny-gpt-loss-spike: garbled text makes the loss spike in both runs; the
// mixed run's scaler overflows on the spike's first step and skips it, so
// that step changes none of the mixed model's weights while the twin's move.
#include "scenario/scenario_test_util.h"

#include <vector>

#include "engine/scenario/scenario_checks.h"

namespace plab {
namespace {

TEST(ScenarioTinyGptLossSpike, VerdictsHold) {
    CpuBackend backend;
    scenario_test::expect_all_hold(check_tiny_gpt_loss_spike(backend, {}), "tiny-gpt-loss-spike");
}

// Every layer's weight as the optimizer holds it, downloaded.
std::vector<std::vector<float>> weights(Backend& backend, const Model& model) {
    std::vector<std::vector<float>> out;
    for (int i = 0; i < model.layer_count(); ++i) {
        const Tensor& w = model.layer_weight(i).target();
        out.emplace_back(w.size());
        backend.download(w, out.back().data());
    }
    return out;
}

TEST(ScenarioTinyGptLossSpike, TheFirstGarbledStepSpikesAndLeavesTheMixedWeightsAlone) {
    const RunConfig config = load_preset("tiny-gpt-loss-spike");
    const int first = config.data.garbled_from;
    CpuBackend backend;
    Trainer trainer(backend, config);
    double before = 0, before_ref = 0;
    for (int step = 1; step < first; ++step) {
        const StepRecord r = trainer.step();
        if (step >= first - 10) before += r.loss / 10, before_ref += r.loss_ref / 10;
    }
    const auto mixed_weights = weights(backend, trainer.network());
    const auto twin_weights = weights(backend, *trainer.twin_network());
    const StepRecord garbled = trainer.step();
    std::printf("[ measured ] step %lld: loss %.3f (twin %.3f) after a mean of %.3f (%.3f); skipped %d\n",
                static_cast<long long>(garbled.step), garbled.loss, garbled.loss_ref, before, before_ref,
                static_cast<int>(garbled.skipped));
    EXPECT_GE(garbled.loss, 2 * before);
    EXPECT_GE(garbled.loss_ref, 2 * before_ref);
    EXPECT_TRUE(garbled.skipped);
    EXPECT_EQ(weights(backend, trainer.network()), mixed_weights);
    EXPECT_NE(weights(backend, *trainer.twin_network()), twin_weights);
}

}  // namespace
}  // namespace plab
