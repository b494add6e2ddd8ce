// Every way a preset or a --set edit can be wrong, each with the message a
// user sees: the field path, the rejected value and what is allowed. Messages
// are written out by hand.
#include <gtest/gtest.h>

#include <string>

#include "engine/common/error.h"
#include "engine/train/preset_io.h"

namespace plab {
namespace {

// The message parse_run_config throws for `json`, or "(no error)".
std::string parse_error(const std::string& json, const std::string& source = "") {
    try {
        parse_run_config(json, source);
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

std::string setting_error(const std::string& assignment) {
    RunConfig c;
    try {
        apply_settings(c, {assignment});
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

std::string validate_error(const RunConfig& c) {
    try {
        validate(c);
    } catch (const Error& e) {
        return e.what();
    }
    return "(no error)";
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

#define EXPECT_PREFIX(message, prefix) EXPECT_TRUE(starts_with(message, prefix)) << "message: " << (message)

const std::string kTopKeys =
    "name, description, guide, seed, steps, batch_size, eval_every, twin, data, model, precision, scaler, optimizer, "
    "telemetry";
const std::string kScalerKeys =
    "kind, init_scale, growth_factor, backoff_factor, growth_interval, hysteresis, min_scale, max_scale";

// ---------------------------------------------------------------------------
// Unknown and duplicate keys

// " steps=5" answered "did you mean steps?", as if the key were misspelt.
TEST(PresetErrors, ASpaceInASettingsPathIsNamed) {
    for (const char* bad : {" steps=5", "steps =5", "scaler. init_scale=2"})
        EXPECT_EQ(setting_error(bad), "--set: \"" + std::string(bad) +
                                          "\" has a space in its path; write PATH=VALUE with no space before the "
                                          "'=', e.g. steps=5");
    EXPECT_EQ(setting_error("steps=5"), "(no error)");
}

// --set description=null stored the word "null", where the same null in a
// preset file is refused: both refuse it now, and the quoted word still works.
TEST(PresetErrors, ANullSettingMeansWhatItMeansInAFile) {
    EXPECT_EQ(setting_error("description=null"),
              "description: null is not allowed; allowed a string (for the word null, quote it: "
              "description='\"null\"')");
    EXPECT_EQ(parse_error(R"({"description": null})"), "description: null is not allowed; allowed a string");
    EXPECT_PREFIX(setting_error("precision.recipe=null"), "precision.recipe: null is not allowed; allowed ");
    RunConfig config;
    apply_setting(config, "description=\"null\"");
    EXPECT_EQ(config.description, "null");
    apply_setting(config, "description=nullish");
    EXPECT_EQ(config.description, "nullish");
}

// Nesting 400000 deep crashed every front end (a stack overflow freeing the
// tree); past 64 levels it is an error, whatever the brackets, and 64 itself
// still parses (and then fails as a preset, not as JSON).
TEST(PresetErrors, DeepNestingIsAnErrorNotACrash) {
    const std::string deep = std::string(400000, '[') + std::string(400000, ']');
    EXPECT_EQ(parse_error(deep, "d.json"),
              "d.json: invalid JSON: arrays and objects nested more than 64 levels deep (a preset needs 4)");
    std::string objects;
    for (int i = 0; i < 1000; ++i) objects += "{\"a\":";
    EXPECT_NE(parse_error(objects + "1" + std::string(1000, '}')).find("nested more than 64"), std::string::npos);
    const std::string at_limit = std::string(64, '[') + std::string(64, ']');
    EXPECT_EQ(parse_error(at_limit).find("nested"), std::string::npos) << parse_error(at_limit);
}

TEST(PresetErrors, UnknownKeysListTheAllowedOnes) {
    EXPECT_EQ(parse_error(R"({"stpes": 5})"), "stpes: unknown key; allowed keys: " + kTopKeys + "; did you mean steps?");
    EXPECT_EQ(parse_error(R"({"scaler": {"grwth_interval": 5}})"),
              "scaler.grwth_interval: unknown key; allowed keys: " + kScalerKeys + "; did you mean growth_interval?");
    // Nothing close: no guess.
    EXPECT_EQ(parse_error(R"({"data": {"seed": 5}})"),
              "data.seed: unknown key; allowed keys: kind, samples, noise, classes, test_fraction, digits, "
              "garbled_from, garbled_steps");
    EXPECT_EQ(parse_error(R"({"optimizer": {"learning_rate": 1}})"),
              "optimizer.learning_rate: unknown key; allowed keys: kind, lr, momentum, beta1, beta2, eps, "
              "weight_decay, clip_norm, clip_scaled, accumulation");
}

TEST(PresetErrors, DuplicateKeys) {
    EXPECT_EQ(parse_error(R"({"steps": 1, "steps": 2})"), "steps: duplicate key; each key may appear once");
    EXPECT_EQ(parse_error(R"({"model": {"init": "xavier", "init": "kaiming"}})"),
              "model.init: duplicate key; each key may appear once");
    EXPECT_EQ(parse_error(R"({"precision": {"layer_overrides": {"fc1": "fp32", "fc1": "bf16"}}})"),
              "precision.layer_overrides.fc1: duplicate key; each key may appear once");
}

// ---------------------------------------------------------------------------
// Wrong types

TEST(PresetErrors, WrongTypes) {
    EXPECT_EQ(parse_error(R"({"steps": "abc"})"), "steps: \"abc\" is not allowed; allowed an integer 1..10000000");
    EXPECT_EQ(parse_error(R"({"steps": 2.5})"), "steps: 2.5 is not allowed; allowed an integer 1..10000000");
    EXPECT_EQ(parse_error(R"({"data": {"samples": 1e-3}})"), "data.samples: 1e-3 is not allowed; allowed an integer");
    EXPECT_EQ(parse_error(R"({"seed": -1})"), "seed: -1 is not allowed; allowed an integer 0..18446744073709551615");
    EXPECT_EQ(parse_error(R"({"twin": "yes"})"), "twin: \"yes\" is not allowed; allowed true|false");
    EXPECT_EQ(parse_error(R"({"telemetry": {"enabled": 1}})"),
              "telemetry.enabled: 1 is not allowed; allowed true|false");
    EXPECT_EQ(parse_error(R"({"name": 5})"), "name: 5 is not allowed; allowed a string");
    EXPECT_EQ(parse_error(R"({"scaler": {"init_scale": "big"}})"),
              "scaler.init_scale: \"big\" is not allowed; allowed a number");
    EXPECT_EQ(parse_error(R"({"data": {"noise": null}})"), "data.noise: null is not allowed; allowed a number");
    EXPECT_EQ(parse_error(R"({"model": {"hidden": 64}})"),
              "model.hidden: 64 is not allowed; allowed an array of integers, e.g. [64, 64]");
    EXPECT_EQ(parse_error(R"({"model": {"hidden": [64, 2.5]}})"),
              "model.hidden[1]: 2.5 is not allowed; allowed an integer");
    EXPECT_EQ(parse_error(R"({"data": "spirals"})"),
              "data: \"spirals\" is not allowed; allowed an object with keys kind, samples, noise, classes, "
              "test_fraction, digits, garbled_from, garbled_steps");
    EXPECT_EQ(parse_error(R"({"precision": {"fp32_ops": "mse"}})"),
              "precision.fp32_ops: \"mse\" is not allowed; allowed an array of names from "
              "layer_norm|batch_norm|softmax_cross_entropy|mse|softmax");
    EXPECT_EQ(parse_error(R"({"precision": {"layer_overrides": ["fc1"]}})"),
              "precision.layer_overrides: [\"fc1\"] is not allowed; allowed an object of layer name -> "
              "fp32|tf32|fp16|bf16, e.g. {\"fc2\": \"fp32\"}");
    EXPECT_EQ(parse_error("[1, 2]"), "a preset must be a JSON object {...}; got [1,2]");
    // Long values are cut in the message.
    EXPECT_EQ(parse_error(R"({"steps": [1000000, 2000000, 3000000, 4000000, 5000000]})"),
              "steps: [1000000,2000000,3000000,4000000,5000... is not allowed; allowed an integer 1..10000000");
}

// ---------------------------------------------------------------------------
// Out of range

TEST(PresetErrors, OutOfRange) {
    EXPECT_EQ(parse_error(R"({"steps": 0})"), "steps: 0 is out of range; allowed 1..10000000");
    EXPECT_EQ(parse_error(R"({"steps": 99999999999})"), "steps: 99999999999 is out of range; allowed 1..10000000");
    EXPECT_EQ(parse_error(R"({"batch_size": 70000})"), "batch_size: 70000 is out of range; allowed 1..65536");
    EXPECT_EQ(parse_error(R"({"eval_every": 0})"), "eval_every: 0 is out of range; allowed 1..10000000");
    EXPECT_EQ(parse_error(R"({"telemetry": {"hist_every": -1}})"),
              "telemetry.hist_every: -1 is out of range; allowed 0..10000000");
    EXPECT_EQ(parse_error(R"({"telemetry": {"sample_every": -5}})"),
              "telemetry.sample_every: -5 is out of range; allowed 0..10000000");
    EXPECT_EQ(parse_error(R"({"telemetry": {"sample_chars": 0}})"),
              "telemetry.sample_chars: 0 is out of range; allowed 1..1000");
    EXPECT_EQ(parse_error(R"({"telemetry": {"sample_chars": 1001}})"),
              "telemetry.sample_chars: 1001 is out of range; allowed 1..1000");
    EXPECT_EQ(parse_error(R"({"data": {"samples": 1099511627776}})"),
              "data.samples: 1099511627776 is out of range; allowed -2147483648..2147483647");
    // Floats beyond float's range, either way, are errors, not Inf or 0.
    EXPECT_EQ(parse_error(R"({"scaler": {"init_scale": 1e39}})"),
              "scaler.init_scale: 1e39 is out of range; allowed a float: 0 or 1e-45 <= |x| <= 3.4028235e+38");
    EXPECT_EQ(parse_error(R"({"optimizer": {"eps": 1e-50}})"),
              "optimizer.eps: 1e-50 is out of range; allowed a float: 0 or 1e-45 <= |x| <= 3.4028235e+38");
    EXPECT_EQ(parse_error(R"({"data": {"noise": 1e-330}})"),
              "data.noise: 1e-330 is out of range; allowed a double: 0 or 5e-324 <= |x| <= 1.7976931348623157e+308");
    // Beyond double, the JSON parser itself stops, at the number's last character.
    EXPECT_EQ(parse_error(R"({"data": {"noise": 1e309}})", "n.json"),
              "n.json:1:24: invalid JSON: number overflow parsing '1e309'");
    // The largest float and the smallest subnormal are in range.
    EXPECT_EQ(parse_run_config(R"({"scaler": {"init_scale": 3.4028235e38, "min_scale": 1e-45}})", "").scaler.init_scale,
              3.4028235e38f);
    // Ranges of the parts come from their own validate().
    EXPECT_PREFIX(parse_error(R"({"scaler": {"growth_factor": 0.5}})"), "scaler.growth_factor: 0.5 is out of range");
    EXPECT_PREFIX(parse_error(R"({"data": {"samples": 2}})"), "data.samples: 2 is out of range");
    EXPECT_EQ(parse_error(R"({"model": {"init_gain": 0}})"),
              "model.init_gain: 0 is out of range; allowed > 0 and <= 100");
    EXPECT_EQ(parse_error(R"({"model": {"init_gain": 100.5}})"),
              "model.init_gain: 100.5 is out of range; allowed > 0 and <= 100");
}

TEST(PresetErrors, BatchSizeAtMostTheTrainingRows) {
    // 1536 rows, round(1536 * 0.2) = 307 of them for the test split: 1229 to train on.
    const std::string data = R"("data": {"samples": 1536, "test_fraction": 0.2})";
    EXPECT_EQ(parse_run_config("{" + data + R"(, "batch_size": 1229})", "").batch_size, 1229);
    EXPECT_EQ(parse_error("{" + data + R"(, "batch_size": 1230})"),
              "batch_size: 1230 is out of range; allowed 1..1229 (the training rows: data.samples 1536 minus 307 "
              "test rows)");
}

// A hidden layer takes one norm; a batch's statistics need two rows; the
// GPT's blocks have LayerNorms of their own.
TEST(PresetErrors, BatchNormRules) {
    EXPECT_EQ(parse_error(R"({"model": {"layer_norm": true, "batch_norm": true}})"),
              "model.batch_norm: true is out of range; allowed false while model.layer_norm is true (one norm per "
              "hidden layer)");
    EXPECT_EQ(parse_error(R"({"model": {"batch_norm": true}, "batch_size": 1})"),
              "batch_size: 1 is out of range; allowed 2 or more with model.batch_norm (a batch's variance needs two "
              "rows)");
    EXPECT_EQ(parse_error(R"({"data": {"kind": "shakespeare"}, "model": {"kind": "gpt", "batch_norm": true}})"),
              "model.batch_norm: true is out of range; allowed false with model.kind gpt (its blocks carry "
              "LayerNorms)");
    EXPECT_TRUE(parse_run_config(R"({"model": {"batch_norm": true}, "batch_size": 2})", "").model.batch_norm);
}

// An MLP writes no text: samples are refused with the kind that cannot take
// them, and taken with a GPT.
TEST(PresetErrors, TextSamplesNeedALanguageModel) {
    EXPECT_EQ(parse_error(R"({"telemetry": {"sample_every": 50}})"),
              "telemetry.sample_every: 50 is out of range; allowed 0 with model.kind mlp (text samples need a "
              "language model: model.kind gpt)");
    const std::string gpt = R"("data": {"kind": "shakespeare"}, "model": {"kind": "gpt"})";
    EXPECT_EQ(parse_run_config("{" + gpt + R"(, "telemetry": {"sample_every": 50}})", "").telemetry.sample_every, 50);
}

// ---------------------------------------------------------------------------
// Bad names

TEST(PresetErrors, BadEnumNamesListTheChoices) {
    EXPECT_EQ(parse_error(R"({"precision": {"recipe": "amp-fp8"}})"),
              "precision.recipe: \"amp-fp8\" is not allowed; allowed "
              "fp32|tf32|amp-fp16|amp-bf16|fp16-pure|bf16-pure|fp8");
    EXPECT_EQ(parse_error(R"({"scaler": {"kind": "Dynamic"}})"),
              "scaler.kind: \"Dynamic\" is not allowed; allowed none|static|dynamic|hysteresis");
    EXPECT_EQ(parse_error(R"({"data": {"kind": "swiss-roll"}})"),
              "data.kind: \"swiss-roll\" is not allowed; allowed spirals|moons|circles|xor|blobs|sine|shakespeare|addition");
    EXPECT_EQ(parse_error(R"({"model": {"activation": "silu"}})"),
              "model.activation: \"silu\" is not allowed; allowed identity|relu|tanh|gelu");
    EXPECT_EQ(parse_error(R"({"model": {"init": "he"}})"), "model.init: \"he\" is not allowed; allowed kaiming|xavier");
    EXPECT_EQ(parse_error(R"({"optimizer": {"kind": "adam"}})"),
              "optimizer.kind: \"adam\" is not allowed; allowed sgd|adamw");
    EXPECT_EQ(parse_error(R"({"precision": {"fp32_ops": ["mse", "exp"]}})"),
              "precision.fp32_ops[1]: \"exp\" is not allowed; allowed layer_norm|batch_norm|softmax_cross_entropy|mse|softmax");
    EXPECT_EQ(parse_error(R"({"precision": {"layer_overrides": {"fc2": "e4m3"}}})"),
              "precision.layer_overrides.fc2: \"e4m3\" is not allowed; allowed fp32|tf32|fp16|bf16");
    EXPECT_EQ(parse_error(R"({"precision": {"accumulate": "bf16"}})"),
              "precision.accumulate: \"bf16\" is not allowed; allowed fp32|fp16");
}

// FP16 sums are defined over FP16 matmul inputs: the other recipes refuse
// them by name rather than run FP32 sums under an fp16 label.
TEST(PresetErrors, Fp16AccumulationNeedsAnFp16Recipe) {
    const auto with_recipe = [](const std::string& recipe) {
        return parse_error(R"({"precision": {"accumulate": "fp16", "recipe": ")" + recipe + "\"}}");
    };
    EXPECT_EQ(with_recipe("amp-fp16"), "(no error)");
    EXPECT_EQ(with_recipe("fp16-pure"), "(no error)");
    EXPECT_EQ(parse_error(R"({"precision": {"recipe": "amp-bf16", "accumulate": "fp16"}})"),
              "precision.accumulate: fp16 is out of range; allowed fp32 with precision.recipe amp-bf16 (fp16 needs "
              "FP16 matmul inputs: recipe amp-fp16 or fp16-pure)");
    for (const char* recipe : {"fp32", "tf32", "fp8"})
        EXPECT_NE(with_recipe(recipe).find("precision.accumulate: fp16 is out of range"), std::string::npos) << recipe;
}

TEST(PresetErrors, PrecisionPolicyAgainstTheModel) {
    EXPECT_EQ(parse_error(R"({"precision": {"layer_overrides": {"fc4": "fp32"}}})"),
              "precision.layer_overrides: \"fc4\" is out of range; allowed the model's layers fc1|fc2|fc3 as keys");
    EXPECT_EQ(parse_error(R"({"model": {"hidden": [8]}, "precision": {"layer_overrides": {"fc3": "fp32"}}})"),
              "precision.layer_overrides: \"fc3\" is out of range; allowed the model's layers fc1|fc2 as keys");
    EXPECT_EQ(parse_run_config(R"({"precision": {"layer_overrides": {"fc3": "bf16"}}})", "")
                  .precision.layer_overrides.at("fc3"),
              FormatId::bf16);
    EXPECT_EQ(parse_error(R"({"precision": {"fp32_ops": ["mse", "layer_norm", "mse"]}})"),
              "precision.fp32_ops[2]: mse is out of range; allowed each of layer_norm|batch_norm|softmax_cross_entropy|mse|softmax "
              "at most once");
    // A config built in code with a format a file could not name.
    RunConfig c;
    c.precision.layer_overrides["fc1"] = FormatId::e5m2;
    EXPECT_EQ(validate_error(c), "precision.layer_overrides.fc1: e5m2 is out of range; allowed fp32|tf32|fp16|bf16");
}

TEST(PresetErrors, Names) {
    EXPECT_EQ(parse_error(R"({"name": "My Run"})"),
              "name: \"My Run\" is out of range; allowed non-empty, of a-z, 0-9 and '-'");
    EXPECT_PREFIX(parse_error(R"({"name": ""})"), "name: \"\" is out of range");
    EXPECT_EQ(parse_run_config(R"({"name": "a-1"})", "").name, "a-1");
}

// ---------------------------------------------------------------------------
// Syntax, and the source's name

TEST(PresetErrors, SyntaxErrorsGiveLineAndColumn) {
    // The '}' after the comma is character 14 of line 1.
    EXPECT_EQ(parse_error(R"({"steps": 10,})", "x.json"),
              "x.json:1:14: invalid JSON: syntax error while parsing object key - unexpected '}'; expected string "
              "literal");
    // Line 3, column 8: the '}' where a value belongs.
    EXPECT_PREFIX(parse_error("{\n  \"a\": 1,\n  \"b\": }\n", "y.json"), "y.json:3:8: invalid JSON: ");
    EXPECT_PREFIX(parse_error("", "empty.json"), "empty.json:1:1: invalid JSON: ");
    EXPECT_PREFIX(parse_error("{} {}", ""), "1:4: invalid JSON: ");
}

TEST(PresetErrors, SourcePrefixesFieldErrors) {
    EXPECT_EQ(parse_error(R"({"steps": 0})", "my.json"), "my.json: steps: 0 is out of range; allowed 1..10000000");
}

// ---------------------------------------------------------------------------
// --set

TEST(SettingErrors, UnknownPaths) {
    EXPECT_EQ(setting_error("optimizer.lrr=0.1"),
              "optimizer.lrr: unknown key; allowed keys: kind, lr, momentum, beta1, beta2, eps, weight_decay, "
              "clip_norm, clip_scaled, accumulation; did you mean lr?");
    EXPECT_EQ(setting_error("sclaer.init_scale=1"), "sclaer: unknown key; allowed keys: " + kTopKeys +
                                                        "; did you mean scaler?");
    EXPECT_EQ(setting_error("stesp=1"), "stesp: unknown key; allowed keys: " + kTopKeys + "; did you mean steps?");
    EXPECT_EQ(setting_error("steps.max=1"), "steps.max: unknown key; steps holds a value, not keys (--set steps=VALUE)");
    EXPECT_EQ(setting_error("data.seed=5"),
              "data.seed: unknown key; allowed keys: kind, samples, noise, classes, test_fraction, digits, "
              "garbled_from, garbled_steps");
    EXPECT_PREFIX(setting_error("steps"), "--set: \"steps\" is not allowed; allowed PATH=VALUE");
    EXPECT_PREFIX(setting_error("=5"), "--set: \"=5\" is not allowed; allowed PATH=VALUE");
}

TEST(SettingErrors, BadValues) {
    EXPECT_EQ(setting_error("optimizer.lr=abc"), "optimizer.lr: \"abc\" is not allowed; allowed a number");
    EXPECT_EQ(setting_error("twin=yes"), "twin: \"yes\" is not allowed; allowed true|false");
    EXPECT_EQ(setting_error("steps=2.5"), "steps: 2.5 is not allowed; allowed an integer 1..10000000");
    EXPECT_EQ(setting_error("steps=0"), "steps: 0 is out of range; allowed 1..10000000");
    EXPECT_EQ(setting_error("model.hidden=[32,"),
              "model.hidden: \"[32,\" is not allowed; allowed an array of integers, e.g. [64, 64]");
    EXPECT_EQ(setting_error("precision.recipe=fp4"),
              "precision.recipe: \"fp4\" is not allowed; allowed fp32|tf32|amp-fp16|amp-bf16|fp16-pure|bf16-pure|fp8");
    EXPECT_EQ(setting_error("precision.layer_overrides.fc2=e4m3"),
              "precision.layer_overrides.fc2: \"e4m3\" is not allowed; allowed fp32|tf32|fp16|bf16");
    EXPECT_EQ(setting_error("precision.layer_overrides.fc9=fp32"),
              "precision.layer_overrides: \"fc9\" is out of range; allowed the model's layers fc1|fc2|fc3 as keys");
    EXPECT_EQ(setting_error("scaler.init_scale=1e39"),
              "scaler.init_scale: 1e39 is out of range; allowed a float: 0 or 1e-45 <= |x| <= 3.4028235e+38");
    EXPECT_EQ(setting_error("scaler=[1]"),
              "scaler: [1] is not allowed; allowed an object with keys " + kScalerKeys);
    EXPECT_EQ(setting_error("scaler={\"kind\": \"static\", \"scale\": 2}"),
              "scaler.scale: unknown key; allowed keys: " + kScalerKeys);
    EXPECT_EQ(setting_error("name=My Run"), "name: \"My Run\" is out of range; allowed non-empty, of a-z, 0-9 and '-'");
}

}  // namespace
}  // namespace plab
