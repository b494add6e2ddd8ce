#include "engine/train/run_config.h"

#include <algorithm>
#include <string>

#include "engine/common/field_check.h"
#include "engine/data/token_data.h"
#include "engine/train/preset_rules.h"

namespace plab {

namespace {

void check_limits(std::string_view path, int x, IntLimits limits) { check_int_field(path, x, limits.lo, limits.hi); }

// Names end up in file names and JSONL headers: keep them shell- and URL-safe.
void validate_name(const std::string& name) {
    const bool ok = !name.empty() && std::all_of(name.begin(), name.end(), [](char ch) {
        return (ch >= 'a' && ch <= 'z') || (ch >= '0' && ch <= '9') || ch == '-';
    });
    if (!ok) reject_field("name", "\"" + name + "\"", "non-empty, of a-z, 0-9 and '-'");
}

std::string joined(const std::vector<std::string>& names) {
    std::string out;
    for (const std::string& n : names) out += (out.empty() ? "" : "|") + n;
    return out;
}

// FP16 sums are defined for FP16 matmul inputs only: their products are
// exact in FP32, so a partial sum's one rounding is to FP16. Other recipes
// are refused rather than run with FP32 sums under an fp16 label.
void validate_accumulation(const PrecisionConfig& p) {
    const std::string_view name = accumulation_name(p.accumulate);
    if (name == "?")
        reject_field("precision.accumulate", std::to_string(static_cast<int>(p.accumulate)), accumulation_choices());
    if (p.accumulate == Accumulation::fp16 && !recipe_accumulates_fp16(p.recipe))
        reject_field("precision.accumulate", std::string(name),
                     "fp32 with precision.recipe " + std::string(recipe_name(p.recipe)) +
                         " (fp16 needs FP16 matmul inputs: recipe amp-fp16 or fp16-pure)");
}

void validate_precision(const PrecisionConfig& p, const ModelConfig& model) {
    if (recipe_name(p.recipe) == "?")
        reject_field("precision.recipe", std::to_string(static_cast<int>(p.recipe)), recipe_choices());
    for (std::size_t i = 0; i < p.fp32_ops.size(); ++i) {
        const std::string path = "precision.fp32_ops[" + std::to_string(i) + "]";
        const std::string_view name = fp32_op_name(p.fp32_ops[i]);
        if (name == "?") reject_field(path, std::to_string(static_cast<int>(p.fp32_ops[i])), fp32_op_choices());
        if (std::find(p.fp32_ops.begin(), p.fp32_ops.begin() + static_cast<std::ptrdiff_t>(i), p.fp32_ops[i]) !=
            p.fp32_ops.begin() + static_cast<std::ptrdiff_t>(i))
            reject_field(path, std::string(name), "each of " + fp32_op_choices() + " at most once");
    }
    const std::vector<std::string> layers = model_layer_names(model);
    for (const auto& [layer, format] : p.layer_overrides) {
        if (std::find(layers.begin(), layers.end(), layer) == layers.end())
            reject_field("precision.layer_overrides", "\"" + layer + "\"",
                         "the model's layers " + joined(layers) + " as keys");
        if (!is_override_format(format))
            reject_field("precision.layer_overrides." + layer, std::string(format_name(format)),
                         override_format_choices());
    }
    validate(p.fp8);
    validate_accumulation(p);
}

// The GPT trains on token data and only there; an addition window is one example.
void validate_model_and_data(const RunConfig& c) {
    const bool tokens = is_token_data(c.data.kind);
    if (c.model.kind == ModelKind::gpt && !tokens)
        reject_field("data.kind", std::string(dataset_kind_name(c.data.kind)),
                     "shakespeare|addition with model.kind gpt");
    if (c.model.kind != ModelKind::gpt && tokens)
        reject_field("model.kind", std::string(model_kind_name(c.model.kind)),
                     "gpt with data.kind " + std::string(dataset_kind_name(c.data.kind)));
    if (c.data.kind == DatasetKind::addition && c.model.gpt.context != fixed_context(token_data_spec(c.data)))
        reject_field("model.context", std::to_string(c.model.gpt.context),
                     std::to_string(fixed_context(token_data_spec(c.data))) + " for data.digits " +
                         std::to_string(c.data.digits) + " (one addition example less its newline)");
}

// A micro-batch is drawn from the training rows, so it cannot hold more.
void validate_batch_size(const RunConfig& c) {
    if (c.model.batch_norm && c.batch_size < 2)
        reject_field("batch_size", std::to_string(c.batch_size),
                     "2 or more with model.batch_norm (a batch's variance needs two rows)");
    if (is_token_data(c.data.kind)) return;  // windows are drawn afresh: any count will do
    const int test_rows = test_row_count(c.data);
    const int train_rows = c.data.samples - test_rows;
    if (c.batch_size > train_rows)
        reject_field("batch_size", std::to_string(c.batch_size),
                     "1.." + std::to_string(train_rows) + " (the training rows: data.samples " +
                         std::to_string(c.data.samples) + " minus " + std::to_string(test_rows) + " test rows)");
}

// Text samples are a language model's writing: an MLP has none to show.
void validate_telemetry(const RunConfig& c) {
    const TelemetryConfig& t = c.telemetry;
    check_limits("telemetry.hist_every", t.hist_every, kHistEveryLimits);
    check_limits("telemetry.sample_every", t.sample_every, kSampleEveryLimits);
    check_limits("telemetry.sample_chars", t.sample_chars, kSampleCharsLimits);
    if (t.sample_every > 0 && c.model.kind != ModelKind::gpt)
        reject_field("telemetry.sample_every", std::to_string(t.sample_every),
                     "0 with model.kind " + std::string(model_kind_name(c.model.kind)) +
                         " (text samples need a language model: model.kind gpt)");
}

}  // namespace

void validate(const RunConfig& c) {
    validate_name(c.name);
    check_limits("steps", c.steps, kStepsLimits);
    check_limits("batch_size", c.batch_size, kBatchSizeLimits);
    check_limits("eval_every", c.eval_every, kEvalEveryLimits);
    validate(c.data);
    validate_batch_size(c);
    validate(c.model);
    validate_model_and_data(c);
    validate_precision(c.precision, c.model);
    validate(c.scaler);
    validate(c.optimizer);
    validate_telemetry(c);
}

}  // namespace plab
