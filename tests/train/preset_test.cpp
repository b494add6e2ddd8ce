// Presets: the shipped files, defaults, the JSON written back, round trips
// and --set edits. Expected values are written out by hand from
// docs/DESIGN.md, not taken from the code under test.
#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/train/preset_io.h"

namespace plab {
namespace {

const std::vector<std::string> kShipped = {"fp16-static-overflow", "scaler-sawtooth", "spirals-amp-fp16", "spirals-bf16",
                                           "spirals-fp32"};

std::uint32_t bits(float x) {
    std::uint32_t u;
    std::memcpy(&u, &x, sizeof u);
    return u;
}

// parse(to_json(c)) == c, in both forms, and writing again gives the same text
// (which also pins floats bit for bit: -0 and 0 compare equal, their text does not).
void expect_round_trip(const RunConfig& c) {
    for (bool pretty : {true, false}) {
        const std::string text = run_config_to_json(c, pretty);
        const RunConfig back = parse_run_config(text, "");
        EXPECT_EQ(back, c) << text;
        EXPECT_EQ(run_config_to_json(back, pretty), text);
    }
}

// ---------------------------------------------------------------------------
// The shipped presets

TEST(ShippedPresets, RoundTripEveryField) {
    for (const std::string& name : kShipped) {
        SCOPED_TRACE(name);
        const RunConfig c = load_preset(name);
        EXPECT_EQ(c.name, name);  // the file's name field matches the library name
        expect_round_trip(c);
    }
}

TEST(ShippedPresets, DescriptionsAreOneLine) {
    for (const std::string& name : kShipped) {
        const RunConfig c = load_preset(name);
        EXPECT_GT(c.description.size(), 40u) << name;
        EXPECT_EQ(c.description.find('\n'), std::string::npos) << name;
    }
}

TEST(ShippedPresets, DefaultIsSpiralsAmpFp16WithPytorchScaler) {
    const RunConfig c = load_preset("spirals-amp-fp16");
    EXPECT_EQ(c.data.kind, DatasetKind::spirals);
    EXPECT_EQ(c.data.classes, 3);
    EXPECT_EQ(c.data.samples, 1536);
    EXPECT_EQ(c.data.noise, 0.05);
    EXPECT_EQ(c.data.seed, c.seed);
    EXPECT_EQ(c.model.hidden, (std::vector<int>{64, 64}));
    EXPECT_EQ(c.model.activation, Activation::relu);
    EXPECT_EQ(c.precision.recipe, Recipe::amp_fp16);
    EXPECT_EQ(c.scaler.kind, ScalerKind::dynamic);
    EXPECT_EQ(c.scaler.init_scale, 65536.0f);
    EXPECT_EQ(c.scaler.growth_factor, 2.0f);
    EXPECT_EQ(c.scaler.backoff_factor, 0.5f);
    EXPECT_EQ(c.scaler.growth_interval, 2000);
    EXPECT_EQ(c.optimizer.kind, OptimizerKind::adamw);
    EXPECT_EQ(c.optimizer.lr, 0.002f);
    EXPECT_EQ(c.batch_size, 128);
    EXPECT_EQ(c.steps, 2000);
    EXPECT_TRUE(c.twin);
}

TEST(ShippedPresets, VariantsDifferWhereTheySay) {
    const RunConfig base = load_preset("spirals-amp-fp16");
    RunConfig fp32 = load_preset("spirals-fp32");
    EXPECT_EQ(fp32.precision.recipe, Recipe::fp32);
    EXPECT_EQ(fp32.scaler.kind, ScalerKind::none);
    RunConfig bf16 = load_preset("spirals-bf16");
    EXPECT_EQ(bf16.precision.recipe, Recipe::amp_bf16);
    EXPECT_EQ(bf16.scaler.kind, ScalerKind::none);
    // Everything else is the default run's: the three compare one recipe.
    for (RunConfig* c : {&fp32, &bf16}) {
        c->name = base.name;
        c->description = base.description;
        c->precision.recipe = base.precision.recipe;
        c->scaler.kind = base.scaler.kind;
        EXPECT_EQ(*c, base) << run_config_to_json(*c);
    }
    const RunConfig saw = load_preset("scaler-sawtooth");
    EXPECT_EQ(saw.precision.recipe, Recipe::amp_fp16);
    EXPECT_EQ(saw.scaler.kind, ScalerKind::dynamic);
    EXPECT_EQ(saw.scaler.init_scale, 16777216.0f);  // 2^24
    EXPECT_EQ(saw.scaler.growth_interval, 50);
    EXPECT_EQ(saw.steps, 600);
}

// ---------------------------------------------------------------------------
// Defaults

TEST(PresetDefaults, EmptyObjectIsTheStructDefaults) {
    RunConfig expected;  // amp-fp16's scaler is dynamic, the struct's default too
    expected.data.seed = 1;
    EXPECT_EQ(parse_run_config("{}", ""), expected);
    EXPECT_EQ(parse_run_config(" { \"scaler\" : { } } ", ""), expected);
}

TEST(PresetDefaults, ScalerKindFollowsTheRecipe) {
    const struct {
        const char* recipe;
        ScalerKind scaler;
    } cases[] = {{"fp32", ScalerKind::none},
                 {"tf32", ScalerKind::none},
                 {"amp-fp16", ScalerKind::dynamic},
                 {"amp-bf16", ScalerKind::none},
                 {"fp16-pure", ScalerKind::dynamic},
                 {"bf16-pure", ScalerKind::none}};
    for (const auto& c : cases) {
        SCOPED_TRACE(c.recipe);
        const std::string recipe = std::string("\"precision\": {\"recipe\": \"") + c.recipe + "\"}";
        EXPECT_EQ(parse_run_config("{" + recipe + "}", "").scaler.kind, c.scaler);
        // A scaler object without a kind still defaults it; its other keys apply.
        const RunConfig with_scale = parse_run_config("{" + recipe + ", \"scaler\": {\"init_scale\": 1024}}", "");
        EXPECT_EQ(with_scale.scaler.kind, c.scaler);
        EXPECT_EQ(with_scale.scaler.init_scale, 1024.0f);
        // A kind that is named wins over the recipe's.
        EXPECT_EQ(parse_run_config("{" + recipe + ", \"scaler\": {\"kind\": \"static\"}}", "").scaler.kind,
                  ScalerKind::static_scale);
    }
}

TEST(PresetDefaults, SeedIsTheDataSeed) {
    const RunConfig c = parse_run_config(R"({"seed": 42})", "");
    EXPECT_EQ(c.seed, 42u);
    EXPECT_EQ(c.data.seed, 42u);
}

TEST(PresetDefaults, WholeNumbersWrittenAsRealsAreIntegers) {
    const RunConfig c = parse_run_config(R"({"steps": 1e3, "batch_size": 64.0})", "");
    EXPECT_EQ(c.steps, 1000);
    EXPECT_EQ(c.batch_size, 64);
}

// ---------------------------------------------------------------------------
// Writing

// The default config, written out by hand in the documented shape.
TEST(PresetWrite, DefaultConfigPretty) {
    RunConfig c;
    c.description = "a \"quoted\" line";
    const std::string expected = R"({
  "name": "custom",
  "description": "a \"quoted\" line",
  "guide": "",
  "seed": 1,
  "steps": 2000,
  "batch_size": 128,
  "eval_every": 100,
  "twin": true,
  "data": {
    "kind": "spirals",
    "samples": 1024,
    "noise": 0.1,
    "classes": 3,
    "test_fraction": 0.2,
    "digits": 3,
    "garbled_from": 0,
    "garbled_steps": 0
  },
  "model": {
    "kind": "mlp",
    "hidden": [64, 64],
    "activation": "relu",
    "layer_norm": false,
    "batch_norm": false,
    "init": "kaiming",
    "init_gain": 1,
    "attention_tokens": 0,
    "attention_logit_scale": 1,
    "context": 32,
    "width": 64,
    "heads": 4,
    "layers": 2,
    "tied_head": true,
    "logit_scale": 0,
    "embedding_std": 0.02
  },
  "precision": {
    "recipe": "amp-fp16",
    "master_weights": true,
    "fp32_ops": ["layer_norm", "batch_norm", "softmax_cross_entropy", "mse", "softmax"],
    "layer_overrides": {},
    "fp8_scaling": "delayed",
    "fp8_history_len": 16,
    "fp8_margin": 0,
    "accumulate": "fp32"
  },
  "scaler": {
    "kind": "dynamic",
    "init_scale": 65536,
    "growth_factor": 2,
    "backoff_factor": 0.5,
    "growth_interval": 2000,
    "hysteresis": 2,
    "min_scale": 1,
    "max_scale": 0
  },
  "optimizer": {
    "kind": "adamw",
    "lr": 0.01,
    "momentum": 0.9,
    "beta1": 0.9,
    "beta2": 0.999,
    "eps": 1e-08,
    "weight_decay": 0,
    "clip_norm": 0,
    "clip_scaled": false,
    "accumulation": 1
  },
  "telemetry": {
    "enabled": true,
    "hist_every": 0,
    "sample_every": 0,
    "sample_chars": 80
  }
}
)";
    EXPECT_EQ(run_config_to_json(c, true), expected);
}

TEST(PresetWrite, CompactIsOneLine) {
    RunConfig c;
    c.precision.layer_overrides = {{"fc1", FormatId::bf16}, {"fc3", FormatId::fp32}};
    c.model.hidden = {8, 16};
    const std::string text = run_config_to_json(c, false);
    EXPECT_EQ(text.find('\n'), std::string::npos);
    EXPECT_EQ(text.find(' '), std::string::npos);  // no description, so no spaces at all
    EXPECT_EQ(text.substr(0, 34), R"({"name":"custom","description":"",)");
    EXPECT_NE(text.find(R"("hidden":[8,16])"), std::string::npos) << text;
    EXPECT_NE(text.find(R"("layer_overrides":{"fc1":"bf16","fc3":"fp32"})"), std::string::npos) << text;
    const std::string tail = R"(,"telemetry":{"enabled":true,"hist_every":0,"sample_every":0,"sample_chars":80}})";
    EXPECT_EQ(text.substr(text.size() - tail.size()), tail);
}

// Every field off its default, with awkward values: the largest seed, floats
// with no short decimal, the float extremes, unicode text.
RunConfig odd_config() {
    RunConfig c;
    c.name = "odd-1";
    c.description = "\xc3\xa9t\xc3\xa9 \"q\" \\ tab\t";
    c.guide = "Look at: \"x\".\n\nTry: a\\b.\n\nWhat happens: \xc3\xa9.";
    c.seed = std::numeric_limits<std::uint64_t>::max();
    c.data.seed = c.seed;
    c.steps = 10000000;
    c.batch_size = 7;
    c.eval_every = 3;
    c.twin = false;
    c.data.kind = DatasetKind::blobs;
    c.data.samples = 99;
    c.data.noise = 0.30000000000000004;
    c.data.classes = 5;
    c.data.test_fraction = 1.0 / 3.0;
    c.model.hidden = {3, 5, 7};
    c.model.activation = Activation::gelu;
    c.model.layer_norm = true;
    c.model.init = InitKind::xavier;
    c.model.init_gain = 0.1f;
    c.model.attention_tokens = 3;
    c.model.attention_logit_scale = 1e6f;
    c.precision.recipe = Recipe::fp16_pure;
    c.precision.master_weights = false;
    c.precision.fp32_ops = {Fp32Op::mse, Fp32Op::layer_norm};
    c.precision.layer_overrides = {{"fc4", FormatId::tf32}, {"fc2", FormatId::fp16}};
    c.precision.fp8 = {Fp8ScalingKind::none, 1024, 8};
    c.precision.accumulate = Accumulation::fp16;
    c.scaler.kind = ScalerKind::hysteresis;
    c.scaler.init_scale = FLT_MAX;
    c.scaler.growth_factor = 1.0000001f;
    c.scaler.backoff_factor = 0.1f;
    c.scaler.growth_interval = 1;
    c.scaler.hysteresis = 7;
    c.scaler.min_scale = std::numeric_limits<float>::denorm_min();
    c.scaler.max_scale = 0.0f;
    c.optimizer.kind = OptimizerKind::sgd;
    c.optimizer.lr = 1.0f / 3.0f;
    c.optimizer.momentum = 0.0f;
    c.optimizer.beta1 = 0.5f;
    c.optimizer.beta2 = 0.75f;
    c.optimizer.eps = FLT_MIN;
    c.optimizer.weight_decay = 1e-4f;
    c.optimizer.clip_norm = 16777217.0f;  // rounds to 2^24 as a float, stays so
    c.optimizer.clip_scaled = true;
    c.optimizer.accumulation = 4;
    c.telemetry.enabled = false;
    c.telemetry.hist_every = 10000000;
    // sample_every stays 0: an MLP has no text to sample (validate refuses it).
    c.telemetry.sample_chars = 1000;
    return c;
}

TEST(PresetRoundTrip, EveryFieldOffDefault) {
    const RunConfig c = odd_config();
    ASSERT_NO_THROW(validate(c));
    expect_round_trip(c);
}

// odd_config() takes LayerNorm, which excludes BatchNorm: its field goes
// through the writer, the reader and --set here.
TEST(PresetRoundTrip, BatchNormField) {
    RunConfig c;
    c.data.seed = c.seed;
    c.model.batch_norm = true;
    ASSERT_NO_THROW(validate(c));
    expect_round_trip(c);
    RunConfig set;
    apply_setting(set, "model.batch_norm=true");
    EXPECT_EQ(set, c);
}

// Random positive finite floats, bit for bit, through fields that accept any
// of them (min/max_scale are tied to init_scale for the hysteresis kind only).
TEST(PresetRoundTrip, RandomFloatsBitExact) {
    std::mt19937 rng(7);
    RunConfig c;
    for (int i = 0; i < 10000; ++i) {
        std::uint32_t u = rng();
        float x;
        std::memcpy(&x, &u, sizeof x);
        x = std::fabs(x);
        if (!std::isfinite(x) || x == 0.0f) continue;
        c.scaler.min_scale = x;
        c.scaler.max_scale = x;
        const RunConfig back = parse_run_config(run_config_to_json(c, false), "");
        ASSERT_EQ(bits(back.scaler.min_scale), bits(x)) << x;
        ASSERT_EQ(bits(back.scaler.max_scale), bits(x)) << x;
    }
}

// ---------------------------------------------------------------------------
// --set

TEST(ApplySetting, EachValueType) {
    RunConfig c;
    apply_setting(c, "steps=500");  // int
    EXPECT_EQ(c.steps, 500);
    apply_setting(c, "seed=18446744073709551615");  // uint64, copied to the data
    EXPECT_EQ(c.seed, 18446744073709551615ull);
    EXPECT_EQ(c.data.seed, 18446744073709551615ull);
    apply_setting(c, "scaler.init_scale=1024");  // float from an integer
    EXPECT_EQ(c.scaler.init_scale, 1024.0f);
    apply_setting(c, "optimizer.lr=3e-4");  // float, rounded once
    EXPECT_EQ(c.optimizer.lr, 3e-4f);
    apply_setting(c, "data.noise=0.25");  // double
    EXPECT_EQ(c.data.noise, 0.25);
    apply_setting(c, "twin=false");  // bool
    EXPECT_FALSE(c.twin);
    apply_setting(c, "name=my-run");  // bare string
    EXPECT_EQ(c.name, "my-run");
    apply_setting(c, "description=hello = world");  // only the first '=' splits
    EXPECT_EQ(c.description, "hello = world");
    apply_setting(c, "description=\"quoted\\tJSON\"");  // a JSON string literal
    EXPECT_EQ(c.description, "quoted\tJSON");
    apply_setting(c, "guide=\"Look at: a.\\n\\nTry: b.\"");  // multi-paragraph text as a JSON literal
    EXPECT_EQ(c.guide, "Look at: a.\n\nTry: b.");
    apply_setting(c, "precision.recipe=amp-bf16");  // bare name
    EXPECT_EQ(c.precision.recipe, Recipe::amp_bf16);
    EXPECT_EQ(c.scaler.kind, ScalerKind::dynamic);  // only the named field changes
    apply_setting(c, "model.activation=\"tanh\"");  // quoted name
    EXPECT_EQ(c.model.activation, Activation::tanh);
    apply_setting(c, "model.hidden=[32,32]");  // int list
    EXPECT_EQ(c.model.hidden, (std::vector<int>{32, 32}));
    apply_setting(c, "precision.fp32_ops=[\"mse\"]");  // name list
    EXPECT_EQ(c.precision.fp32_ops, std::vector<Fp32Op>{Fp32Op::mse});
    apply_setting(c, "precision.layer_overrides={\"fc2\": \"fp32\"}");  // map, replaced whole
    apply_setting(c, "precision.layer_overrides.fc3=bf16");            // one entry
    EXPECT_EQ(c.precision.layer_overrides,
              (std::map<std::string, FormatId>{{"fc2", FormatId::fp32}, {"fc3", FormatId::bf16}}));
    apply_setting(c, "scaler={\"kind\": \"static\", \"init_scale\": 8}");  // a section: its keys only
    EXPECT_EQ(c.scaler.kind, ScalerKind::static_scale);
    EXPECT_EQ(c.scaler.init_scale, 8.0f);
    EXPECT_EQ(c.scaler.growth_interval, 2000);
    apply_setting(c, "telemetry.hist_every=25");
    EXPECT_EQ(c.telemetry.hist_every, 25);
    EXPECT_NO_THROW(validate(c));
}

// Powers of two as the lab prints them: 2^K is the number, exactly, for any
// numeric field; text fields keep the characters.
TEST(ApplySetting, PowersOfTwoAsWritten) {
    RunConfig c;
    apply_setting(c, "scaler.init_scale=2^24");
    EXPECT_EQ(c.scaler.init_scale, 16777216.0f);
    apply_setting(c, "scaler.init_scale=2^-24");
    EXPECT_EQ(c.scaler.init_scale, 0x1p-24f);
    apply_setting(c, "scaler.max_scale=2^127");  // the largest float power of two
    EXPECT_EQ(c.scaler.max_scale, 0x1p127f);
    apply_setting(c, "scaler.growth_interval=2^10");  // an integer field
    EXPECT_EQ(c.scaler.growth_interval, 1024);
    apply_setting(c, "data.noise=2^-3");  // a double
    EXPECT_EQ(c.data.noise, 0.125);
    apply_setting(c, "seed=2^62");
    EXPECT_EQ(c.seed, 4611686018427387904ull);
    apply_setting(c, "name=2^8");
    EXPECT_EQ(c.name, "2^8");
    EXPECT_THROW(apply_setting(c, "scaler.growth_interval=2^40"), Error);  // beyond int
    EXPECT_THROW(apply_setting(c, "scaler.init_scale=2^128"), Error);      // beyond float
    EXPECT_THROW(apply_setting(c, "scaler.init_scale=2^"), Error);
    EXPECT_THROW(apply_setting(c, "scaler.init_scale=2^1.5"), Error);
}

// Edits that are only consistent together: apply_settings validates at the end.
TEST(ApplySetting, SettingsValidateOnceAtTheEnd) {
    RunConfig c;
    apply_settings(c, {"scaler.kind=hysteresis", "scaler.init_scale=0.5", "scaler.min_scale=0.25"});
    EXPECT_EQ(c.scaler.min_scale, 0.25f);
    apply_settings(c, {"precision.layer_overrides.fc3=fp32", "model.hidden=[16]", "precision.layer_overrides={}"});
    EXPECT_TRUE(c.precision.layer_overrides.empty());
    EXPECT_THROW(apply_settings(c, {"steps=0"}), Error);
}

TEST(ApplySetting, PathsListEveryField) {
    const std::vector<std::string> paths = setting_paths();
    ASSERT_EQ(paths.size(), 62u);  // 8 top-level, data 8, model 16, precision 8, scaler 8, optimizer 10, telemetry 4
    EXPECT_EQ(paths.front(), "name");
    EXPECT_EQ(paths[2], "guide");
    EXPECT_EQ(paths[8], "data.kind");
    EXPECT_EQ(paths.back(), "telemetry.sample_chars");
}

// Every path, one --set each, turns the defaults into odd_config(). The values
// are cut out of its JSON by nlohmann (floats through a double), not by the
// preset writer's own reader.
TEST(ApplySetting, EveryPathReachesItsField) {
    const RunConfig target = odd_config();
    const nlohmann::json j = nlohmann::json::parse(run_config_to_json(target));
    RunConfig c;
    for (const std::string& path : setting_paths()) {
        const std::size_t dot = path.find('.');
        const nlohmann::json& value =
            dot == std::string::npos ? j.at(path) : j.at(path.substr(0, dot)).at(path.substr(dot + 1));
        apply_setting(c, path + "=" + value.dump());
    }
    EXPECT_EQ(c, target);
}

}  // namespace
}  // namespace plab
