#pragma once
// The schema of a preset: every settable RunConfig field with its JSON
// section and key, in file order. Reading a file, writing one and --set all
// walk this one list, so a new field is added here once.
//
// visit_fields(config, v) calls v(section, key, field) for each field, where
// `field` is a reference to the member, or one of the small wrappers below
// for ints with limits, enums, enum lists and the layer-override map.
#include <climits>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/train/preset_rules.h"
#include "engine/train/run_config.h"

namespace plab::preset {

struct IntField {
    int& value;
    IntLimits limits{INT_MIN, INT_MAX};  // checked on read only when narrower than int
};

template <typename E>
struct EnumField {
    E& value;
    std::string_view (*name)(E);
    std::optional<E> (*parse)(std::string_view);
    std::string (*choices)();
};

template <typename E>
struct EnumListField {
    std::vector<E>& values;
    std::string_view (*name)(E);
    std::optional<E> (*parse)(std::string_view);
    std::string (*choices)();
};

// Layer name -> format; the names are checked against the model by validate().
struct LayerOverridesField {
    std::map<std::string, FormatId>& value;
};

// The sections, in file order; every other top-level key is a field.
inline constexpr std::string_view kSections[] = {"data", "model", "precision", "scaler", "optimizer", "telemetry"};

template <typename Visitor>
void visit_fields(RunConfig& c, Visitor&& v) {
    v("", "name", c.name);
    v("", "description", c.description);
    v("", "guide", c.guide);
    v("", "seed", c.seed);
    v("", "steps", IntField{c.steps, kStepsLimits});
    v("", "batch_size", IntField{c.batch_size, kBatchSizeLimits});
    v("", "eval_every", IntField{c.eval_every, kEvalEveryLimits});
    v("", "twin", c.twin);

    v("data", "kind", EnumField<DatasetKind>{c.data.kind, dataset_kind_name, parse_dataset_kind, dataset_kind_choices});
    v("data", "samples", IntField{c.data.samples});
    v("data", "noise", c.data.noise);
    v("data", "classes", IntField{c.data.classes});
    v("data", "test_fraction", c.data.test_fraction);
    v("data", "digits", IntField{c.data.digits});
    v("data", "garbled_from", IntField{c.data.garbled_from});
    v("data", "garbled_steps", IntField{c.data.garbled_steps});

    v("model", "kind", EnumField<ModelKind>{c.model.kind, model_kind_name, parse_model_kind, model_kind_choices});
    v("model", "hidden", c.model.hidden);
    v("model", "activation", EnumField<Activation>{c.model.activation, activation_name, parse_activation,
                                                   activation_choices});
    v("model", "layer_norm", c.model.layer_norm);
    v("model", "batch_norm", c.model.batch_norm);
    v("model", "init", EnumField<InitKind>{c.model.init, init_kind_name, parse_init_kind, init_kind_choices});
    v("model", "init_gain", c.model.init_gain);
    v("model", "attention_tokens", IntField{c.model.attention_tokens});
    v("model", "attention_logit_scale", c.model.attention_logit_scale);
    v("model", "context", IntField{c.model.gpt.context});
    v("model", "width", IntField{c.model.gpt.width});
    v("model", "heads", IntField{c.model.gpt.heads});
    v("model", "layers", IntField{c.model.gpt.layers});
    v("model", "tied_head", c.model.gpt.tied_head);
    v("model", "logit_scale", c.model.gpt.logit_scale);
    v("model", "embedding_std", c.model.gpt.embedding_std);

    v("precision", "recipe", EnumField<Recipe>{c.precision.recipe, recipe_name, parse_recipe, recipe_choices});
    v("precision", "master_weights", c.precision.master_weights);
    v("precision", "fp32_ops",
      EnumListField<Fp32Op>{c.precision.fp32_ops, fp32_op_name, parse_fp32_op, fp32_op_choices});
    v("precision", "layer_overrides", LayerOverridesField{c.precision.layer_overrides});
    v("precision", "fp8_scaling", EnumField<Fp8ScalingKind>{c.precision.fp8.scaling, fp8_scaling_name,
                                                             parse_fp8_scaling, fp8_scaling_choices});
    v("precision", "fp8_history_len", IntField{c.precision.fp8.history_len, {kFp8HistoryMin, kFp8HistoryMax}});
    v("precision", "fp8_margin", IntField{c.precision.fp8.margin, {kFp8MarginMin, kFp8MarginMax}});
    v("precision", "accumulate", EnumField<Accumulation>{c.precision.accumulate, accumulation_name,
                                                         parse_accumulation, accumulation_choices});

    v("scaler", "kind", EnumField<ScalerKind>{c.scaler.kind, scaler_kind_name, parse_scaler_kind, scaler_kind_choices});
    v("scaler", "init_scale", c.scaler.init_scale);
    v("scaler", "growth_factor", c.scaler.growth_factor);
    v("scaler", "backoff_factor", c.scaler.backoff_factor);
    v("scaler", "growth_interval", IntField{c.scaler.growth_interval});
    v("scaler", "hysteresis", IntField{c.scaler.hysteresis});
    v("scaler", "min_scale", c.scaler.min_scale);
    v("scaler", "max_scale", c.scaler.max_scale);

    v("optimizer", "kind",
      EnumField<OptimizerKind>{c.optimizer.kind, optimizer_kind_name, parse_optimizer_kind, optimizer_kind_choices});
    v("optimizer", "lr", c.optimizer.lr);
    v("optimizer", "momentum", c.optimizer.momentum);
    v("optimizer", "beta1", c.optimizer.beta1);
    v("optimizer", "beta2", c.optimizer.beta2);
    v("optimizer", "eps", c.optimizer.eps);
    v("optimizer", "weight_decay", c.optimizer.weight_decay);
    v("optimizer", "clip_norm", c.optimizer.clip_norm);
    v("optimizer", "clip_scaled", c.optimizer.clip_scaled);
    v("optimizer", "accumulation", IntField{c.optimizer.accumulation});

    v("telemetry", "enabled", c.telemetry.enabled);
    v("telemetry", "hist_every", IntField{c.telemetry.hist_every, kHistEveryLimits});
    v("telemetry", "sample_every", IntField{c.telemetry.sample_every, kSampleEveryLimits});
    v("telemetry", "sample_chars", IntField{c.telemetry.sample_chars, kSampleCharsLimits});
}

// "section.key", or "key" at the top level.
inline std::string field_path(std::string_view section, std::string_view key) {
    return section.empty() ? std::string(key) : std::string(section) + "." + std::string(key);
}

}  // namespace plab::preset
