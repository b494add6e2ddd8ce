// tiny-gpt-embedding-underflow: pure FP16 without a loss scaler holds zeros
// where the FP32 twin's position-embedding gradients are small but not zero.
// Counted here row by row from the two models' gradients, independently of
// the check's meter, with where the lost rows lie: never where a random
// operand digit is still to come, and mostly at the last position, whose
// stream feeds only its own loss: the newline that always comes there.
#include "scenario/scenario_test_util.h"

#include <array>
#include <vector>

#include "engine/model/tiny_gpt.h"
#include "engine/scenario/scenario_checks.h"

namespace plab {
namespace {

TEST(ScenarioTinyGptEmbeddingUnderflow, VerdictsHold) {
    CpuBackend backend;
    scenario_test::expect_all_hold(check_tiny_gpt_embedding_underflow(backend, {}), "tiny-gpt-embedding-underflow");
}

std::vector<float> host(Backend& backend, const Tensor& t) {
    std::vector<float> out(t.size());
    backend.download(t, out.data());
    return out;
}

TEST(ScenarioTinyGptEmbeddingUnderflow, WholeRowsAreLostWhereTheNextTokensAreCertain) {
    const RunConfig config = load_preset("tiny-gpt-embedding-underflow");
    ASSERT_EQ(config.precision.recipe, Recipe::fp16_pure);
    ASSERT_EQ(config.scaler.kind, ScalerKind::none);
    // "ab+cd=" then three sum digits: positions 0-8; from 4 on every next token follows from the operands.
    ASSERT_EQ(config.data.digits, 2);
    ASSERT_EQ(config.model.gpt.context, 9);
    constexpr int kFirstDetermined = 4;

    CpuBackend backend;
    Trainer trainer(backend, config);
    std::array<int, 9> lost_rows{};
    double nonzero = 0, lost = 0;
    for (int s = 1; s <= config.steps; ++s) {
        const StepRecord r = trainer.step();
        if (s <= config.steps / 2 || r.skipped) continue;
        const auto& run = dynamic_cast<const TinyGpt&>(trainer.network()).position_embedding().master_grad;
        const auto& twin = dynamic_cast<const TinyGpt&>(*trainer.twin_network()).position_embedding().master_grad;
        const std::vector<float> g = host(backend, run), g_ref = host(backend, twin);
        const auto cols = static_cast<std::size_t>(twin.cols());
        for (std::size_t row = 0; row < lost_rows.size(); ++row) {
            int row_nonzero = 0, row_lost = 0;
            for (std::size_t j = row * cols; j < (row + 1) * cols; ++j) {
                if (g_ref[j] == 0.0f) continue;
                ++row_nonzero;
                row_lost += g[j] == 0.0f;
            }
            nonzero += row_nonzero;
            lost += row_lost;
            lost_rows[row] += row_nonzero > 0 && row_lost == row_nonzero;
        }
    }
    std::printf("[ measured ] %.4f of the twin's non-zero wpe grads are zeros in FP16; whole rows lost by position:",
                lost / nonzero);
    for (int n : lost_rows) std::printf(" %d", n);
    std::printf("\n");
    EXPECT_GE(lost / nonzero, 0.05);
    int all = 0;
    for (std::size_t p = 0; p < lost_rows.size(); ++p) {
        if (static_cast<int>(p) < kFirstDetermined) {
            EXPECT_EQ(lost_rows[p], 0) << "position " << p << " still has a random operand digit to predict";
        }
        all += lost_rows[p];
    }
    EXPECT_GE(all, 400);
    EXPECT_GE(lost_rows.back(), 0.9 * all);
}

}  // namespace
}  // namespace plab
