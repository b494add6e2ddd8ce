// The diagnosis in words of the first overflow or NaN, and the remedies it
// offers, on hand-made runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>
#include <vector>

#include "tests/present/step_record_builders.h"
#include "ui/present/nan_diagnosis.h"
#include "ui/present/trace_asker.h"

namespace plab {
namespace {

const std::vector<std::string> kNames = {"fc1", "fc2", "fc3"};

StepRecord with_layers(StepRecord r) {
    r.layers.resize(3);
    for (LayerRecord& l : r.layers) {
        l.grad.count = 4096;
        l.act.count = 8192;
    }
    return r;
}

RunConfig amp_fp16(ScalerKind kind) {
    RunConfig c;
    c.precision.recipe = Recipe::amp_fp16;
    c.scaler.kind = kind;
    return c;
}

TEST(NanDiagnosis, CleanRunHasNothingToSay) {
    RunLog log;
    for (int s = 1; s <= 3; ++s) log.append(with_layers(test::scaled_step(s, 16, 16, 0.5f)));
    const NanDiagnosis d = diagnose_first_nonfinite(log.view(), amp_fp16(ScalerKind::dynamic), kNames);
    EXPECT_FALSE(d.found);
    EXPECT_EQ(d.headline, "No overflow or NaN so far.");
    EXPECT_EQ(d.detail.rfind("When a gradient overflows or the loss turns NaN, this says where it began", 0), 0u);
    EXPECT_TRUE(d.remedies.empty());
}

TEST(NanDiagnosis, BackwardOverflowCaughtByTheDynamicScaler) {
    RunLog log;
    for (int s = 1; s <= 3; ++s) log.append(with_layers(test::scaled_step(s, 16, 16, 0.5f)));
    StepRecord bad = with_layers(test::overflow_step(4, 16, true, true, 0.5f));
    bad.first_nonfinite_layer = 1;
    bad.layers[1].grad.pos_infs = 10;
    bad.layers[1].grad.neg_infs = 2;
    bad.layers[1].grad.nans = 3;
    log.append(bad);
    log.append(with_layers(test::overflow_step(5, 15, true, true, 0.5f)));  // later ones do not matter

    const NanDiagnosis d = diagnose_first_nonfinite(log.view(), amp_fp16(ScalerKind::dynamic), kNames);
    ASSERT_TRUE(d.found);
    EXPECT_EQ(d.step, 4);
    EXPECT_EQ(d.last_finite_step, 3);
    EXPECT_TRUE(d.handled);  // skipped with a finite loss: the sawtooth, not a NaN loose in the run
    EXPECT_EQ(d.headline, "Step 4: gradient overflow in fc2 (backward) at loss scale 2^16");
    EXPECT_EQ(d.detail,
              "The weight gradient of fc2 held 12 Inf and 3 NaN of 4096 values as scaled by 2^16 (the first layer in "
              "backward order to do so). The step was skipped and the scale backed off to 2^15. That is the dynamic "
              "scaler working as designed; many such steps mean the scale starts too high.");
    ASSERT_EQ(d.remedies.size(), 3u);
    EXPECT_EQ(d.remedies[0].label, "Lower the loss scale to 2^12");
    EXPECT_EQ(d.remedies[0].changes, (std::vector<std::string>{"scaler.scale=4096", "scaler.init_scale=4096"}));
    EXPECT_EQ(d.remedies[1].label, "Keep fc2 in FP32");
    EXPECT_EQ(d.remedies[1].changes, (std::vector<std::string>{"precision.layer_overrides.fc2=fp32"}));
    EXPECT_EQ(d.remedies[2].label, "Switch to BF16 (amp-bf16)");
    EXPECT_EQ(d.remedies[2].changes, (std::vector<std::string>{"precision.recipe=amp-bf16", "scaler.kind=none"}));
}

TEST(NanDiagnosis, ForwardNanWithoutAScalerNamesTheFirstLayerThatOverflowed) {
    RunLog log;
    log.append(with_layers(test::scaled_step(1, 0, 0, 0.5f)));
    StepRecord bad = with_layers(test::scaled_step(2, 0, 0, std::numeric_limits<float>::quiet_NaN()));
    bad.layers[1].act.pos_infs = 7;  // fc2 overflowed first; fc3 only inherited it
    bad.layers[1].act.amax = 60000.0f;
    bad.layers[2].act.nans = 384;
    log.append(bad);
    RunConfig config = amp_fp16(ScalerKind::none);
    config.optimizer.lr = 0.5f;

    const NanDiagnosis d = diagnose_first_nonfinite(log.view(), config, kNames);
    ASSERT_TRUE(d.found);
    EXPECT_EQ(d.step, 2);
    EXPECT_FALSE(d.handled);
    EXPECT_EQ(d.headline, "Step 2: the loss is NaN (forward): the activation of fc2 overflowed first");
    EXPECT_EQ(d.detail,
              "The output of fc2 held 7 Inf of 8192 values; its largest finite |x| was 60000. The update went ahead "
              "with those gradients (scaler kind none skips nothing), so the weights may now hold NaN.");
    ASSERT_EQ(d.remedies.size(), 3u);
    EXPECT_EQ(d.remedies[0].changes, (std::vector<std::string>{"precision.layer_overrides.fc2=fp32"}));
    EXPECT_EQ(d.remedies[1].label, "Switch to BF16 (amp-bf16)");
    EXPECT_EQ(d.remedies[2].changes, (std::vector<std::string>{"optimizer.lr=0.25"}));
}

TEST(NanDiagnosis, AStepThatLeftTheRecentRecordsIsStillNamed) {
    RunLogLimits limits;
    limits.recent = 2;
    RunLog log(limits);
    log.append(with_layers(test::scaled_step(1, 16, 16, 0.5f)));
    StepRecord bad = with_layers(test::overflow_step(2, 16, true, true, 0.5f));
    bad.first_nonfinite_layer = 0;
    log.append(bad);
    for (int s = 3; s <= 6; ++s) log.append(with_layers(test::scaled_step(s, 15, 15, 0.5f)));

    const NanDiagnosis d = diagnose_first_nonfinite(log.view(), amp_fp16(ScalerKind::dynamic), kNames);
    ASSERT_TRUE(d.found);
    EXPECT_EQ(d.step, 2);
    EXPECT_EQ(d.last_finite_step, 1);
    EXPECT_EQ(d.headline, "Step 2: the first overflow or NaN of this run");
    EXPECT_TRUE(d.remedies.empty());
    EXPECT_TRUE(d.handled);  // a dynamic scaler, and every loss in the history finite
    EXPECT_FALSE(diagnose_first_nonfinite(log.view(), amp_fp16(ScalerKind::none), kNames).handled);
}

TEST(NanDiagnosis, AGoneStepWithANanLossInTheHistoryIsNotHandled) {
    RunLogLimits limits;
    limits.recent = 2;
    RunLog log(limits);
    StepRecord bad = with_layers(test::overflow_step(1, 16, true, true, std::numeric_limits<float>::quiet_NaN()));
    log.append(bad);
    for (int s = 2; s <= 5; ++s) log.append(with_layers(test::scaled_step(s, 15, 15, 0.5f)));
    const NanDiagnosis d = diagnose_first_nonfinite(log.view(), amp_fp16(ScalerKind::dynamic), kNames);
    EXPECT_EQ(d.headline, "Step 1: the first overflow or NaN of this run");
    EXPECT_FALSE(d.handled);
}

TEST(NanDiagnosis, OverflowsTheScalerDidNotSkipOrWithANanLossAreNotHandled) {
    RunLog applied;
    applied.append(with_layers(test::overflow_step(1, 0, false, false, 0.5f)));  // kind none applies it
    EXPECT_FALSE(diagnose_first_nonfinite(applied.view(), amp_fp16(ScalerKind::none), kNames).handled);
    RunLog nan_loss;
    nan_loss.append(with_layers(test::overflow_step(1, 16, true, true, std::numeric_limits<float>::quiet_NaN())));
    EXPECT_FALSE(diagnose_first_nonfinite(nan_loss.view(), amp_fp16(ScalerKind::dynamic), kNames).handled);
}

TEST(NanDiagnosis, AnOverflowInABiasGradientSaysSo) {
    RunLog log;
    StepRecord bad = with_layers(test::overflow_step(1, 16, true, false, 0.5f));
    bad.first_nonfinite_layer = 0;
    bad.layers[0].grad.amax = 12288.0f;  // finite: the bias gradient held the Inf
    log.append(bad);
    const NanDiagnosis d = diagnose_first_nonfinite(log.view(), amp_fp16(ScalerKind::static_scale), kNames);
    EXPECT_EQ(d.detail,
              "The bias gradient of fc1 overflowed (the first layer in backward order to do so); its weight gradient "
              "stayed finite, largest |g| 12288 as scaled by 2^16. The step was skipped; the scale stayed at 2^16.");
}

// The pure recipes sum gradients in the weights' 16-bit format whatever a
// layer computes in, and a fork cannot change the weights' format.
TEST(NanDiagnosis, PureRecipesGetNoFp32LayerRemedyForAGradientOverflow) {
    RunLog log;
    StepRecord bad = with_layers(test::overflow_step(1, 16, true, false, 0.5f));
    bad.first_nonfinite_layer = 0;
    log.append(bad);
    for (Recipe recipe : {Recipe::fp16_pure, Recipe::bf16_pure}) {
        SCOPED_TRACE(recipe_name(recipe));
        RunConfig config = amp_fp16(ScalerKind::static_scale);
        config.precision.recipe = recipe;
        const NanDiagnosis d = diagnose_first_nonfinite(log.view(), config, kNames);
        ASSERT_EQ(d.remedies.size(), 1u);  // no FP32 layer, no BF16 switch
        EXPECT_EQ(d.remedies[0].label, "Lower the loss scale to 2^12");
    }
}

TEST(NanDiagnosis, NoScaleToLowerWithoutAScalerOrBelowOne) {
    RunLog log;
    StepRecord bad = with_layers(test::overflow_step(1, 2, true, true, 0.5f));  // scale 4: 4/16 < 1
    bad.first_nonfinite_layer = 2;
    log.append(bad);
    const NanDiagnosis d = diagnose_first_nonfinite(log.view(), amp_fp16(ScalerKind::dynamic), kNames);
    ASSERT_EQ(d.remedies.size(), 2u);
    EXPECT_EQ(d.remedies[0].label, "Keep fc3 in FP32");
}

// A NaN loss whose first non-finite activation is fc2's: the records alone
// blame fc2. The step's trace names the op that made the NaN.
RunLog forward_nan_log() {
    RunLog log;
    log.append(with_layers(test::scaled_step(1, 16, 16, 0.5f)));
    StepRecord bad = with_layers(test::overflow_step(2, 16, true, true, std::numeric_limits<float>::quiet_NaN()));
    bad.layers[1].act.nans = 28;
    log.append(bad);
    return log;
}

NanReport traced_report(std::string layer, std::string op) {
    NanReport r;
    r.step = 2;
    r.phase = Phase::forward;
    r.layer = std::move(layer);
    r.op = std::move(op);
    r.format = FormatId::fp16;
    r.nans = 28;
    r.diagnosis = "forward " + r.op + " of " + r.layer + " at step 2: 28 NaN in fp16";
    return r;
}

TEST(NanDiagnosis, WithoutATraceOfTheStepItAsksForOne) {
    const RunLog log = forward_nan_log();
    const NanDiagnosis d = diagnose_first_nonfinite(log.view(), amp_fp16(ScalerKind::dynamic), kNames);
    EXPECT_TRUE(d.trace_wanted);
    EXPECT_TRUE(d.traced.empty());
    ASSERT_FALSE(d.remedies.empty());
    EXPECT_EQ(d.remedies.front().label, "Keep fc2 in FP32");  // the records' guess
    const StepTrace other{1, std::nullopt};                    // a trace of another step does not count
    EXPECT_TRUE(diagnose_first_nonfinite(log.view(), amp_fp16(ScalerKind::dynamic), kNames, &other).trace_wanted);
}

TEST(NanDiagnosis, ATraceInAnAttentionBlockNamesItsOpAndDropsTheLayerGuess) {
    const RunLog log = forward_nan_log();
    const StepTrace trace{2, traced_report("attn", "softmax")};
    RunConfig config = amp_fp16(ScalerKind::dynamic);
    config.precision.fp32_ops = {Fp32Op::layer_norm, Fp32Op::mse};
    const NanDiagnosis d = diagnose_first_nonfinite(log.view(), config, kNames, &trace);
    EXPECT_FALSE(d.trace_wanted);
    EXPECT_EQ(d.headline, "Step 2: the forward softmax of attn made the first NaN (fp16)");
    EXPECT_EQ(d.traced, "Traced op by op: forward softmax of attn at step 2: 28 NaN in fp16.");
    std::vector<std::string> labels;
    for (const Remedy& r : d.remedies) labels.push_back(r.label);
    EXPECT_EQ(labels, (std::vector<std::string>{"Run softmax in FP32", "Switch to BF16 (amp-bf16)",
                                                "Halve the learning rate"}));
    EXPECT_EQ(d.remedies.front().changes,
              (std::vector<std::string>{R"(precision.fp32_ops=["layer_norm","mse","softmax"])"}));
}

TEST(NanDiagnosis, ATracedLossReductionPutsTheLossBackOnTheFp32List) {
    const RunLog log = forward_nan_log();
    NanReport report = traced_report("loss", "cross_entropy");
    report.phase = Phase::loss;
    const StepTrace trace{2, report};
    RunConfig config = amp_fp16(ScalerKind::dynamic);
    config.precision.fp32_ops = {Fp32Op::layer_norm, Fp32Op::mse, Fp32Op::softmax};
    const NanDiagnosis d = diagnose_first_nonfinite(log.view(), config, kNames, &trace);
    ASSERT_FALSE(d.remedies.empty());
    EXPECT_EQ(d.remedies.front().label, "Run the loss in FP32");
    EXPECT_EQ(d.remedies.front().changes,
              (std::vector<std::string>{R"(precision.fp32_ops=["layer_norm","mse","softmax","softmax_cross_entropy"])"}));
    // On the list already: nothing to put back.
    config.precision.fp32_ops.push_back(Fp32Op::softmax_cross_entropy);
    for (const Remedy& r : diagnose_first_nonfinite(log.view(), config, kNames, &trace).remedies)
        EXPECT_NE(r.label, "Run the loss in FP32");
}

TEST(NanDiagnosis, ATracedNormPutsItBackOnTheFp32List) {
    const RunLog log = forward_nan_log();
    const StepTrace trace{2, traced_report("bn1", "batch_norm")};
    RunConfig config = amp_fp16(ScalerKind::dynamic);
    config.precision.fp32_ops = {Fp32Op::layer_norm, Fp32Op::mse};
    const NanDiagnosis d = diagnose_first_nonfinite(log.view(), config, kNames, &trace);
    ASSERT_FALSE(d.remedies.empty());
    EXPECT_EQ(d.remedies.front().label, "Run BatchNorm in FP32");
    EXPECT_EQ(d.remedies.front().changes,
              (std::vector<std::string>{R"(precision.fp32_ops=["layer_norm","mse","batch_norm"])"}));
    const StepTrace layer_norm_grad{2, traced_report("ln1", "layer_norm_grad")};
    config.precision.fp32_ops = {Fp32Op::mse};
    EXPECT_EQ(diagnose_first_nonfinite(log.view(), config, kNames, &layer_norm_grad).remedies.front().label,
              "Run LayerNorm in FP32");
    // On the list already: nothing to put back.
    config.precision.fp32_ops.push_back(Fp32Op::batch_norm);
    for (const Remedy& r : diagnose_first_nonfinite(log.view(), config, kNames, &trace).remedies)
        EXPECT_NE(r.label, "Run BatchNorm in FP32");
}

TEST(NanDiagnosis, ATraceInALinearLayerKeepsThatLayerInFp32) {
    const RunLog log = forward_nan_log();
    const StepTrace trace{2, traced_report("fc3.weight", "matmul")};
    const NanDiagnosis d = diagnose_first_nonfinite(log.view(), amp_fp16(ScalerKind::dynamic), kNames, &trace);
    ASSERT_FALSE(d.remedies.empty());
    EXPECT_EQ(d.remedies.front().label, "Keep fc3 in FP32");
    EXPECT_EQ(d.remedies.front().changes, (std::vector<std::string>{"precision.layer_overrides.fc3=fp32"}));
    EXPECT_EQ(std::count_if(d.remedies.begin(), d.remedies.end(), [](const Remedy& r) { return r.label.starts_with("Keep "); }), 1);
}

// An embedding table is a telemetry layer but takes no layer override: the
// diagnosis names it and offers no "Keep wpe in FP32".
TEST(NanDiagnosis, AGradientOverflowInATableOffersNoLayerOverride) {
    ModelConfig gpt;
    gpt.kind = ModelKind::gpt;
    gpt.gpt.layers = 1;
    RunConfig config = amp_fp16(ScalerKind::dynamic);
    config.model = gpt;
    const std::vector<std::string> names = {"h0.attn.q", "h0.attn.k", "h0.attn.v", "h0.attn.proj",
                                            "h0.mlp.fc", "h0.mlp.proj", "head", "wpe"};
    RunLog log;
    StepRecord bad = test::overflow_step(1, 16, true, true, 0.5f);
    bad.layers.resize(names.size());
    bad.first_nonfinite_layer = 7;
    bad.layers[7].grad.count = 576;
    bad.layers[7].grad.pos_infs = 5;
    log.append(bad);
    const NanDiagnosis d = diagnose_first_nonfinite(log.view(), config, names);
    EXPECT_EQ(d.headline, "Step 1: gradient overflow in wpe (backward) at loss scale 2^16");
    for (const Remedy& r : d.remedies) EXPECT_EQ(r.label.find("Keep "), std::string::npos) << r.label;
    EXPECT_EQ(d.remedies.front().label, "Lower the loss scale to 2^12");

    // A trace that names the table's own op keeps it out too.
    StepTrace trace{1, traced_report("wpe", "embedding_grad")};
    const NanDiagnosis traced = diagnose_first_nonfinite(log.view(), config, names, &trace);
    EXPECT_FALSE(traced.traced.empty());
    for (const Remedy& r : traced.remedies) EXPECT_EQ(r.label.find("Keep "), std::string::npos) << r.label;
}

TEST(NanDiagnosis, ATraceThatFoundEveryOpFiniteSaysSo) {
    const RunLog log = forward_nan_log();
    const StepTrace trace{2, std::nullopt};
    const NanDiagnosis d = diagnose_first_nonfinite(log.view(), amp_fp16(ScalerKind::dynamic), kNames, &trace);
    EXPECT_FALSE(d.trace_wanted);
    EXPECT_EQ(d.traced, "Traced op by op: the replay of step 2 found every op's output finite (the Inf or NaN came "
                        "from outside the traced ops).");
}

// A view asks for a step's trace once, again only after TraceAsker::kRetry
// while still wanted, at once for another step, and never when not wanted.
TEST(TraceAsker, AsksOncePerStepAndRetriesAfterThePause) {
    using namespace std::chrono_literals;
    TraceAsker asker;
    NanDiagnosis d;
    d.step = 7;
    const TraceAsker::Clock::time_point t0{};
    EXPECT_FALSE(asker.should_ask(d, t0));  // not wanted
    d.trace_wanted = true;
    EXPECT_TRUE(asker.should_ask(d, t0));
    EXPECT_FALSE(asker.should_ask(d, t0 + 16ms));
    EXPECT_FALSE(asker.should_ask(d, t0 + 999ms));
    EXPECT_TRUE(asker.should_ask(d, t0 + 1000ms));
    d.step = 9;
    EXPECT_TRUE(asker.should_ask(d, t0 + 1016ms));
    EXPECT_FALSE(asker.should_ask(d, t0 + 1032ms));
}

}  // namespace
}  // namespace plab
