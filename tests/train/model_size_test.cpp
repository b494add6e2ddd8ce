// The model size that out-of-memory messages name: the parameter count from
// the config equals what the trainer actually allocates, and a model too big
// for the memory it may use ends `plab run` with that message (exit 2), not
// a crash.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/train/model_size.h"
#include "engine/train/trainer.h"
#include "tests/train/trainer_test_util.h"

namespace plab {
namespace {

using trainer_test::preset_with;

std::int64_t allocated_parameters(const Trainer& trainer) {
    std::int64_t total = 0;
    for (const Parameter* p : const_cast<Mlp&>(trainer.model()).parameters())
        total += static_cast<std::int64_t>(p->value.size());
    return total;
}

void expect_count_matches_the_built_model(const RunConfig& config) {
    CpuBackend backend;
    const Trainer trainer(backend, config);
    const int outputs = trainer.data().num_classes > 0 ? trainer.data().num_classes : 1;
    EXPECT_EQ(parameter_count(config.model, trainer.data().input_dim, outputs), allocated_parameters(trainer))
        << config.name;
}

TEST(ModelSize, CountIsWhatTheTrainerAllocates) {
    expect_count_matches_the_built_model(preset_with("spirals-amp-fp16", {}));
    expect_count_matches_the_built_model(preset_with("spirals-amp-fp16", {"model.layer_norm=true"}));
    expect_count_matches_the_built_model(preset_with("spirals-amp-fp16", {"model.batch_norm=true"}));
    expect_count_matches_the_built_model(preset_with("attention-softmax-overflow", {}));
    expect_count_matches_the_built_model(preset_with("spirals-amp-fp16", {"data.kind=sine", "model.hidden=[5,7]"}));
}

TEST(ModelSize, TextNamesWidthsParametersBatchAndTwin) {
    const RunConfig config = preset_with("spirals-amp-fp16", {});
    // 2*64+64 + 64*64+64 + 64*3+3 = 4547 parameters.
    EXPECT_EQ(model_size_text(config, 2, 3), "a 2-64-64-3 MLP (4.5 k parameters, batch 128, with its FP32 twin)");
    const RunConfig big = preset_with("spirals-amp-fp16", {"model.hidden=[4096,4096,4096]", "twin=false"});
    // 2*4096+4096 + 2*(4096^2+4096) + 4096*3+3 = 33,587,203.
    EXPECT_EQ(model_size_text(big, 2, 3), "a 2-4096-4096-4096-3 MLP (33.6 M parameters, batch 128)");
}

}  // namespace
}  // namespace plab
