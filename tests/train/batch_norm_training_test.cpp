// BatchNorm inside a real Trainer and Mlp: training forwards update the
// running statistics and evaluations read them without changing them, a
// clone carries them, and a NaN born in FP16 statistics is traced to the op.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "engine/backend/cpu/cpu_backend.h"
#include "engine/model/mlp.h"
#include "engine/train/preset_io.h"
#include "engine/train/trainer.h"
#include "trainer_test_util.h"

namespace plab {
namespace {

using trainer_test::record_difference;

// The default preset, cut down, with a BatchNorm on each hidden layer and an
// evaluation every step (so every record reads the running statistics).
RunConfig batch_norm_config(const std::vector<std::string>& settings = {}) {
    RunConfig c = load_preset("spirals-amp-fp16");
    c.steps = 40;
    c.eval_every = 1;
    c.model.hidden = {16, 16};
    c.model.batch_norm = true;
    c.telemetry.hist_every = 0;
    apply_settings(c, settings);
    return c;
}

std::vector<float> values(const Tensor& t) { return {t.host(), t.host() + t.size()}; }

// The ops the model reports, as "layer op".
struct OpNames : OpObserver {
    std::vector<std::string> seen;
    void after_op(const OpEvent& e) override { seen.push_back(std::string(e.layer) + " " + std::string(e.op)); }
    bool has(const std::string& name) const { return std::find(seen.begin(), seen.end(), name) != seen.end(); }
};

TEST(BatchNormMlp, TrainingUpdatesTheRunningStatisticsAndEvaluationReadsThem) {
    CpuBackend be;
    Mlp mlp(be, {.widths = {2, 6, 3}, .batch_norm = true});
    ASSERT_EQ(mlp.batch_norms().size(), 1u);
    for (Linear& layer : mlp.linears()) {  // weights away from the zeros a Linear starts with
        std::vector<float> w(layer.weight.value.size());
        for (std::size_t k = 0; k < w.size(); ++k) w[k] = static_cast<float>(static_cast<int>(k * 7 % 11) - 5) / 4.0f;
        be.upload(w.data(), layer.weight.value);
    }
    const BatchNorm& bn = mlp.batch_norms()[0];
    const std::vector<float> xs = {0.5f, -1.0f, 2.0f, 0.25f, -0.75f, 1.5f, 1.0f, 1.0f}, ys = {0, 1, 2, 1};
    Tensor x = be.allocate({4, 2}, FormatId::fp32), y = be.allocate({4, 1}, FormatId::fp32);
    be.upload(xs.data(), x);
    be.upload(ys.data(), y);
    const PassFormats formats = PassFormats::uniform(FormatId::fp32, 2);
    EXPECT_EQ(values(bn.running_mean), std::vector<float>(6, 0.0f));
    EXPECT_EQ(values(bn.running_var), std::vector<float>(6, 1.0f));

    OpNames ops;
    const float train_loss = mlp.forward(be, x, y, formats, &ops);
    mlp.backward(be, x, y, 1.0f, &ops);
    EXPECT_TRUE(ops.has("bn1 batch_norm"));
    EXPECT_TRUE(ops.has("bn1 batch_norm_grad"));
    const std::vector<float> mean = values(bn.running_mean), var = values(bn.running_var), rstd = values(bn.last_rstd());
    EXPECT_NE(mean, std::vector<float>(6, 0.0f));

    float eval_loss = 0;
    {
        const EvaluationScope evaluating(mlp);
        eval_loss = mlp.forward(be, x, y, formats);
    }
    // Nothing moved, and the output is another: the running statistics are a
    // tenth of the way from (0, 1) to the batch's, not the batch's.
    EXPECT_EQ(values(bn.running_mean), mean);
    EXPECT_EQ(values(bn.running_var), var);
    EXPECT_EQ(values(bn.last_rstd()), rstd);
    EXPECT_NE(eval_loss, train_loss);
    EXPECT_FALSE(mlp.evaluating());
    // A second training forward takes the batch statistics again.
    EXPECT_EQ(mlp.forward(be, x, y, formats), train_loss);
    EXPECT_NE(values(bn.running_mean), mean);

    std::vector<std::string> names;
    for (Parameter* p : mlp.parameters()) names.push_back(p->name);
    EXPECT_EQ(names, (std::vector<std::string>{"fc1.weight", "fc1.bias", "bn1.gamma", "bn1.beta", "fc2.weight",
                                               "fc2.bias"}));
    EXPECT_EQ(mlp.layer_of(*mlp.parameters()[2]), 0);
    EXPECT_EQ(mlp.running_state().size(), 2u);
}

// An evaluation (of the test set, every step here) runs in evaluation mode:
// the training it interleaves with is the same as with none.
TEST(BatchNormTraining, EvaluationsLeaveTheTrainingAsItWas) {
    CpuBackend backend;
    Trainer evaluating(backend, batch_norm_config());
    Trainer quiet(backend, batch_norm_config({"eval_every=40"}));
    for (int s = 1; s <= 5; ++s) {
        const StepRecord a = evaluating.step(), b = quiet.step();
        ASSERT_TRUE(a.test_loss.has_value());
        ASSERT_EQ(trainer_test::bits_of(a.loss), trainer_test::bits_of(b.loss)) << "step " << s;
    }
    const BatchNorm& a = evaluating.model().batch_norms()[1];
    const BatchNorm& b = quiet.model().batch_norms()[1];
    EXPECT_EQ(values(a.running_mean), values(b.running_mean));
    EXPECT_EQ(values(a.running_var), values(b.running_var));
}

// The test loss of every step reads the running statistics, so a clone that
// missed them would part from the run at its first evaluation.
TEST(BatchNormTraining, AForkContinuesTheRunBitForBit) {
    CpuBackend backend;
    Trainer trainer(backend, batch_norm_config());
    for (int s = 0; s < 6; ++s) trainer.step();
    const std::unique_ptr<plab::Run> fork = trainer.clone();
    for (int s = 0; s < 5; ++s) {
        const StepRecord a = trainer.step(), b = fork->step();
        ASSERT_EQ(record_difference(a, b), "") << "step " << a.step;
    }
}

// A feature around 300 off the FP32 list: in FP16 its squares pass 65504,
// the variance is Inf - Inf, and the tracer names BatchNorm as the op that
// made the NaN. fc1's bias (amp-fp16 keeps its FP32 weights in `value`, a
// handle onto the model's own storage) puts the feature there.
TEST(BatchNormTraining, TheTracerNamesBatchNormWhenFp16StatisticsOverflow) {
    auto traced = [](const std::vector<std::string>& settings) {
        CpuBackend backend;
        Trainer trainer(backend, batch_norm_config(settings), {.trace_nan = true});
        trainer.step();
        Tensor bias = trainer.model().linears()[0].bias.value;
        bias.host()[3] = 300.0f;
        trainer.step();
        return trainer.nan_report();
    };
    const std::optional<NanReport> off = traced({R"(precision.fp32_ops=["softmax_cross_entropy","mse"])"});
    ASSERT_TRUE(off.has_value());
    EXPECT_EQ(off->step, 2);
    EXPECT_EQ(off->phase, Phase::forward);
    EXPECT_EQ(off->layer, "bn1");
    EXPECT_EQ(off->op, "batch_norm");
    EXPECT_EQ(off->format, FormatId::fp16);
    EXPECT_EQ(off->nans, 128);  // the feature's whole column: one per row of the batch
    // On the list (the preset keeps it there) the same feature normalises.
    const std::optional<NanReport> on = traced({});
    EXPECT_FALSE(on.has_value()) << on->diagnosis;
}

}  // namespace
}  // namespace plab
