#include <gtest/gtest.h>

#include <string>

#include "ui/present/scaler_snippet.h"

namespace plab {
namespace {

ScalerConfig of_kind(ScalerKind kind) {
    ScalerConfig s;
    s.kind = kind;
    return s;
}

// hysteresis 1, no power of two, other factors, a floor below 1 and a ceiling.
ScalerConfig unusual_hysteresis() {
    ScalerConfig s = of_kind(ScalerKind::hysteresis);
    s.init_scale = 3000.0f;
    s.growth_factor = 4.0f;
    s.backoff_factor = 0.25f;
    s.growth_interval = 50;
    s.hysteresis = 1;
    s.min_scale = 0.5f;
    s.max_scale = 1048576.0f;
    return s;
}

const char* const kDefaultCall =
    "scaler = torch.amp.GradScaler(\n"
    "    \"cuda\",\n"
    "    init_scale=65536.0,\n"
    "    growth_factor=2.0,\n"
    "    backoff_factor=0.5,\n"
    "    growth_interval=2000,\n"
    ")\n";

TEST(PytorchGradScaler, DefaultIsPyTorchsDefault) {
    const ScalerSnippet s = pytorch_grad_scaler(ScalerConfig{});
    EXPECT_EQ(s.code, kDefaultCall);
    EXPECT_EQ(s.note, "");
}

TEST(PytorchGradScaler, NoneDisablesTheScaler) {
    const ScalerSnippet s = pytorch_grad_scaler(of_kind(ScalerKind::none));
    EXPECT_EQ(s.code,
              "# No loss scaling: step() applies every step, inf/NaN gradients included.\n"
              "scaler = torch.amp.GradScaler(\"cuda\", enabled=False)\n");
    EXPECT_EQ(s.note, "");
}

TEST(PytorchGradScaler, StaticPinsTheScaleInUpdate) {
    ScalerConfig c = of_kind(ScalerKind::static_scale);
    c.init_scale = 1024.0f;
    const ScalerSnippet s = pytorch_grad_scaler(c);
    EXPECT_EQ(s.code,
              "# GradScaler has no static mode; passing the scale to update() pins it,\n"
              "# and step() still skips steps with inf/NaN gradients.\n"
              "scaler = torch.amp.GradScaler(\"cuda\", init_scale=1024.0)\n"
              "# each step: scaler.scale(loss).backward(); scaler.step(optimizer); then\n"
              "scaler.update(1024.0)  # not scaler.update()\n");
    EXPECT_EQ(s.note,
              "GradScaler has no static mode (it refuses growth_factor=1.0 and backoff_factor=1.0): "
              "calling scaler.update(1024.0) instead of scaler.update() keeps the scale at 1024.0, while "
              "scaler.step() still skips steps with inf/NaN gradients, as the static scaler does.");
}

TEST(PytorchGradScaler, FloatsReadBackAsTheSameFp32) {
    ScalerConfig c = of_kind(ScalerKind::static_scale);
    c.init_scale = 0.1f;
    EXPECT_NE(pytorch_grad_scaler(c).code.find("init_scale=0.1)\n"), std::string::npos);
    c.init_scale = 1e20f;
    EXPECT_NE(pytorch_grad_scaler(c).code.find("init_scale=1e+20)\n"), std::string::npos);
}

TEST(PytorchGradScaler, HysteresisSaysWhatIsMissing) {
    const ScalerSnippet s = pytorch_grad_scaler(of_kind(ScalerKind::hysteresis));
    const std::string limits =
        "GradScaler has no hysteresis (2 here): it backs off on every overflowing step. "
        "GradScaler has no min_scale (1 here): its scale has no floor.";
    EXPECT_EQ(s.code, std::string("# GradScaler has no hysteresis (2 here): it backs off on every overflowing step.\n"
                                  "# GradScaler has no min_scale (1 here): its scale has no floor.\n") +
                          kDefaultCall);
    EXPECT_EQ(s.note, limits);
}

TEST(PytorchGradScaler, HysteresisOfOneNeedsNoComment) {
    const ScalerSnippet s = pytorch_grad_scaler(unusual_hysteresis());
    EXPECT_EQ(s.code,
              "# GradScaler has no min_scale (0.5 here): its scale has no floor.\n"
              "# GradScaler has no max_scale (1048576 here): its scale grows until FP32 overflows.\n"
              "scaler = torch.amp.GradScaler(\n"
              "    \"cuda\",\n"
              "    init_scale=3000.0,\n"
              "    growth_factor=4.0,\n"
              "    backoff_factor=0.25,\n"
              "    growth_interval=50,\n"
              ")\n");
    EXPECT_EQ(s.note,
              "GradScaler has no min_scale (0.5 here): its scale has no floor. "
              "GradScaler has no max_scale (1048576 here): its scale grows until FP32 overflows.");
}

TEST(DeepspeedFp16Block, DefaultIsDynamicWithoutHysteresis) {
    const ScalerSnippet s = deepspeed_fp16_block(ScalerConfig{});
    EXPECT_EQ(s.code,
              "{\n"
              "  \"fp16\": {\n"
              "    \"enabled\": true,\n"
              "    \"loss_scale\": 0,\n"
              "    \"initial_scale_power\": 16,\n"
              "    \"loss_scale_window\": 2000,\n"
              "    \"hysteresis\": 1,\n"
              "    \"consecutive_hysteresis\": false,\n"
              "    \"min_loss_scale\": 1\n"
              "  }\n"
              "}\n");
    EXPECT_EQ(s.note,
              "DeepSpeed floors the scale at min_loss_scale (1) and stops the run on an overflow there; "
              "the dynamic scaler has no floor.");
}

TEST(DeepspeedFp16Block, NoneIsScaleOneThatStillChecks) {
    const ScalerSnippet s = deepspeed_fp16_block(of_kind(ScalerKind::none));
    EXPECT_EQ(s.code,
              "{\n"
              "  \"fp16\": {\n"
              "    \"enabled\": true,\n"
              "    \"loss_scale\": 1\n"
              "  }\n"
              "}\n");
    EXPECT_EQ(s.note,
              "DeepSpeed has no unchecked mode: with loss_scale 1 it still skips a step whose gradients are "
              "not finite, where the lab without a scaler applies it.");
}

TEST(DeepspeedFp16Block, StaticIsAFixedLossScale) {
    ScalerConfig c = of_kind(ScalerKind::static_scale);
    c.init_scale = 1024.0f;
    const ScalerSnippet s = deepspeed_fp16_block(c);
    EXPECT_EQ(s.code,
              "{\n"
              "  \"fp16\": {\n"
              "    \"enabled\": true,\n"
              "    \"loss_scale\": 1024\n"
              "  }\n"
              "}\n");
    EXPECT_EQ(s.note, "");
    c.init_scale = 0.1f;
    EXPECT_NE(deepspeed_fp16_block(c).code.find("\"loss_scale\": 0.1\n"), std::string::npos);
    c.init_scale = 1e20f;
    EXPECT_NE(deepspeed_fp16_block(c).code.find("\"loss_scale\": 1e+20\n"), std::string::npos);
}

TEST(DeepspeedFp16Block, HysteresisDefault) {
    const ScalerSnippet s = deepspeed_fp16_block(of_kind(ScalerKind::hysteresis));
    EXPECT_EQ(s.code,
              "{\n"
              "  \"fp16\": {\n"
              "    \"enabled\": true,\n"
              "    \"loss_scale\": 0,\n"
              "    \"initial_scale_power\": 16,\n"
              "    \"loss_scale_window\": 2000,\n"
              "    \"hysteresis\": 2,\n"
              "    \"consecutive_hysteresis\": false,\n"
              "    \"min_loss_scale\": 1\n"
              "  }\n"
              "}\n");
    EXPECT_EQ(s.note,
              "DeepSpeed stops the run with an error when an overflow finds the scale already at "
              "min_loss_scale; the lab holds it there.");
}

TEST(DeepspeedFp16Block, HysteresisWithWhatDeepSpeedCannotSay) {
    const ScalerSnippet s = deepspeed_fp16_block(unusual_hysteresis());
    EXPECT_EQ(s.code,
              "{\n"
              "  \"fp16\": {\n"
              "    \"enabled\": true,\n"
              "    \"loss_scale\": 0,\n"
              "    \"initial_scale_power\": 12,\n"
              "    \"loss_scale_window\": 50,\n"
              "    \"hysteresis\": 1,\n"
              "    \"consecutive_hysteresis\": false,\n"
              "    \"min_loss_scale\": 0.5\n"
              "  }\n"
              "}\n");
    EXPECT_EQ(s.note,
              "init_scale 3000 is not a power of two: DeepSpeed starts at 2^12. "
              "DeepSpeed always grows by 2 and backs off by 1/2 (here growth_factor 4, backoff_factor 0.25). "
              "DeepSpeed has no max_scale (1048576 here): its scale has no ceiling. "
              "DeepSpeed stops the run with an error when an overflow finds the scale already at "
              "min_loss_scale; the lab holds it there.");
}

TEST(DeepspeedFp16Block, InitialPowerBelowOne) {
    ScalerConfig c;
    c.init_scale = 0.25f;
    const ScalerSnippet s = deepspeed_fp16_block(c);
    EXPECT_NE(s.code.find("\"initial_scale_power\": -2,\n"), std::string::npos);
    EXPECT_EQ(s.note.find("not a power of two"), std::string::npos);
}

}  // namespace
}  // namespace plab

namespace plab {
namespace {

PrecisionConfig recipe(Recipe r, bool master_weights = true) {
    PrecisionConfig p;
    p.recipe = r;
    p.master_weights = master_weights;
    return p;
}

ScalerConfig no_scaler() {
    ScalerConfig s;
    s.kind = ScalerKind::none;
    return s;
}

TEST(HuggingfaceTrainingArguments, EachRecipesFlag) {
    EXPECT_EQ(huggingface_training_arguments(recipe(Recipe::fp32), no_scaler()).code,
              "args = TrainingArguments(output_dir=\"out\")\n");
    EXPECT_EQ(huggingface_training_arguments(recipe(Recipe::tf32), no_scaler()).code,
              "args = TrainingArguments(output_dir=\"out\", tf32=True)\n");
    EXPECT_EQ(huggingface_training_arguments(recipe(Recipe::amp_bf16), no_scaler()).code,
              "args = TrainingArguments(output_dir=\"out\", bf16=True)\n");
    const ScalerSnippet fp16 = huggingface_training_arguments(recipe(Recipe::amp_fp16), ScalerConfig{});
    EXPECT_EQ(fp16.code, "args = TrainingArguments(output_dir=\"out\", fp16=True)\n");
    EXPECT_EQ(fp16.note, "");
}

TEST(HuggingfaceTrainingArguments, PureFp16IsApexO2OrO3) {
    const ScalerSnippet master = huggingface_training_arguments(recipe(Recipe::fp16_pure, true), ScalerConfig{});
    EXPECT_EQ(master.code,
              "# Weights stored in FP16 need NVIDIA Apex: O2 keeps FP32 master weights, O3 none.\n"
              "args = TrainingArguments(\n"
              "    output_dir=\"out\",\n"
              "    fp16=True,\n"
              "    half_precision_backend=\"apex\",\n"
              "    fp16_opt_level=\"O2\",\n"
              ")\n");
    const ScalerSnippet bare = huggingface_training_arguments(recipe(Recipe::fp16_pure, false), ScalerConfig{});
    EXPECT_NE(bare.code.find("fp16_opt_level=\"O3\""), std::string::npos);
}

// bf16=True is autocast over FP32 weights: without master copies no flag
// gives BF16 weights (the model's dtype does), with them DeepSpeed's bf16 mode.
TEST(HuggingfaceTrainingArguments, PureBf16IsTheModelsDtypeOrDeepSpeedsBf16) {
    const ScalerSnippet bare = huggingface_training_arguments(recipe(Recipe::bf16_pure, false), no_scaler());
    EXPECT_EQ(bare.code.substr(bare.code.find("args")), "args = TrainingArguments(output_dir=\"out\")\n");
    EXPECT_NE(bare.note.find("model.to(torch.bfloat16)"), std::string::npos);
    EXPECT_NE(bare.note.find("no pure-BF16 switch"), std::string::npos);
    const ScalerSnippet master = huggingface_training_arguments(recipe(Recipe::bf16_pure, true), no_scaler());
    EXPECT_NE(master.code.find("bf16=True, deepspeed=\"ds_config.json\")"), std::string::npos);
    EXPECT_NE(master.note.find("{\"bf16\": {\"enabled\": true}}"), std::string::npos);
    EXPECT_EQ(master.code.substr(0, 2), "# ");
}

TEST(HuggingfaceTrainingArguments, ScalerSettingsItCannotTakeGoToTheNote) {
    ScalerConfig tuned;
    tuned.growth_interval = 200;
    const ScalerSnippet s = huggingface_training_arguments(recipe(Recipe::amp_fp16), tuned);
    EXPECT_EQ(s.code.substr(0, 2), "# ");
    EXPECT_NE(s.note.find("cannot set the loss scaler"), std::string::npos);
    const ScalerSnippet bf16 = huggingface_training_arguments(recipe(Recipe::amp_bf16), ScalerConfig{});
    EXPECT_EQ(bf16.note, "Without fp16 the Trainer scales no loss; this run's dynamic scaler has no counterpart.");
    const ScalerSnippet fp8 = huggingface_training_arguments(recipe(Recipe::fp8), no_scaler());
    EXPECT_NE(fp8.note.find("no FP8 switch"), std::string::npos);
    EXPECT_NE(fp8.code.find("bf16=True"), std::string::npos);
}

}  // namespace
}  // namespace plab
