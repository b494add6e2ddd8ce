#include "ui/present/scaler_snippet.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/common/number_text.h"

namespace plab {

namespace {

// Black's line length: a call that fits stays on one line.
constexpr std::size_t kLineLength = 88;

// A Python float literal that reads back to the same FP32 value (GradScaler
// keeps its scale in FP32): "65536.0", "0.5", "1e+20".
std::string python_float(float x) {
    std::string text = shortest_text(x);
    if (text.find_first_of(".e") == std::string::npos) text += ".0";
    return text;
}

// `name(args)` on one line when it fits, else one argument a line with a
// trailing comma, as Black writes it.
std::string python_call(const std::string& head, const std::vector<std::string>& args) {
    std::string inline_args;
    for (const std::string& a : args) inline_args += (inline_args.empty() ? "" : ", ") + a;
    std::string line = head + "(" + inline_args + ")";
    if (line.size() <= kLineLength) return line + "\n";
    std::string text = head + "(\n";
    for (const std::string& a : args) text += "    " + a + ",\n";
    return text + ")\n";
}

std::string comment_lines(const std::vector<std::string>& lines) {
    std::string text;
    for (const std::string& l : lines) text += "# " + l + "\n";
    return text;
}

std::string joined(const std::vector<std::string>& sentences) {
    std::string text;
    for (const std::string& s : sentences) text += (text.empty() ? "" : " ") + s;
    return text;
}

constexpr const char* kGradScaler = "scaler = torch.amp.GradScaler";

std::vector<std::string> grad_scaler_args(const ScalerConfig& s) {
    return {"\"cuda\"", "init_scale=" + python_float(s.init_scale), "growth_factor=" + python_float(s.growth_factor),
            "backoff_factor=" + python_float(s.backoff_factor), "growth_interval=" + std::to_string(s.growth_interval)};
}

// What GradScaler lacks of the hysteresis kind (hysteresis 1 backs off on
// every overflow, as GradScaler does).
std::vector<std::string> hysteresis_limits(const ScalerConfig& s) {
    std::vector<std::string> limits;
    if (s.hysteresis != 1) {
        limits.push_back("GradScaler has no hysteresis (" + std::to_string(s.hysteresis) +
                         " here): it backs off on every overflowing step.");
    }
    limits.push_back("GradScaler has no min_scale (" + shortest_text(s.min_scale) + " here): its scale has no floor.");
    if (s.max_scale > 0.0f) {
        limits.push_back("GradScaler has no max_scale (" + shortest_text(s.max_scale) +
                         " here): its scale grows until FP32 overflows.");
    }
    return limits;
}

ScalerSnippet pytorch_static(const ScalerConfig& s) {
    const std::string scale = python_float(s.init_scale);
    ScalerSnippet out;
    out.note = "GradScaler has no static mode (it refuses growth_factor=1.0 and backoff_factor=1.0): "
               "calling scaler.update(" + scale + ") instead of scaler.update() keeps the scale at " + scale +
               ", while scaler.step() still skips steps with inf/NaN gradients, as the static scaler does.";
    out.code = comment_lines({"GradScaler has no static mode; passing the scale to update() pins it,",
                              "and step() still skips steps with inf/NaN gradients."}) +
               python_call(kGradScaler, {"\"cuda\"", "init_scale=" + scale}) +
               "# each step: scaler.scale(loss).backward(); scaler.step(optimizer); then\n"
               "scaler.update(" + scale + ")  # not scaler.update()\n";
    return out;
}

// ---- DeepSpeed ----

// A JSON number that reads back to the same FP32 value: an integer when it
// is one ("1", not "1.0"), else the shortest decimal ("0.1", not 0.10000000149).
nlohmann::ordered_json json_number(float x) {
    constexpr double kExactIntegers = 9007199254740992.0;  // 2^53
    const double d = x;
    if (std::trunc(d) == d && std::fabs(d) < kExactIntegers) return static_cast<std::int64_t>(d);
    return std::stod(shortest_text(x));
}

bool is_power_of_two(float x) { return power_of_two_text(x).rfind("2^", 0) == 0; }

// DeepSpeed's dynamic scaler: fixed factors 2 and 1/2, a floor, no ceiling.
void dynamic_fields(const ScalerConfig& s, int hysteresis, nlohmann::ordered_json& fp16,
                    std::vector<std::string>& notes) {
    const long power = std::lround(std::log2(static_cast<double>(s.init_scale)));
    fp16["loss_scale"] = 0;
    fp16["initial_scale_power"] = power;
    fp16["loss_scale_window"] = s.growth_interval;
    fp16["hysteresis"] = hysteresis;
    fp16["consecutive_hysteresis"] = false;
    fp16["min_loss_scale"] = json_number(s.min_scale);
    if (!is_power_of_two(s.init_scale)) {
        notes.push_back("init_scale " + shortest_text(s.init_scale) +
                        " is not a power of two: DeepSpeed starts at 2^" + std::to_string(power) + ".");
    }
    if (s.growth_factor != 2.0f || s.backoff_factor != 0.5f) {
        notes.push_back("DeepSpeed always grows by 2 and backs off by 1/2 (here growth_factor " +
                        shortest_text(s.growth_factor) + ", backoff_factor " + shortest_text(s.backoff_factor) + ").");
    }
}

void none_fields(nlohmann::ordered_json& fp16, std::vector<std::string>& notes) {
    fp16["loss_scale"] = 1;
    notes.push_back("DeepSpeed has no unchecked mode: with loss_scale 1 it still skips a step whose gradients "
                    "are not finite, where the lab without a scaler applies it.");
}

void static_fields(const ScalerConfig& s, nlohmann::ordered_json& fp16) {
    // DeepSpeed's optimizers check for overflow whatever the scaler and skip
    // such a step, as the static scaler does: nothing is lost.
    fp16["loss_scale"] = json_number(s.init_scale);
}

void hysteresis_notes(const ScalerConfig& s, std::vector<std::string>& notes) {
    if (s.max_scale > 0.0f) {
        notes.push_back("DeepSpeed has no max_scale (" + shortest_text(s.max_scale) + " here): its scale has no ceiling.");
    }
    notes.push_back("DeepSpeed stops the run with an error when an overflow finds the scale already at "
                    "min_loss_scale; the lab holds it there.");
}

constexpr const char* kTrainingArguments = "args = TrainingArguments";

// The recipe's TrainingArguments flags (after output_dir), and what the
// recipe does that no flag expresses.
struct RecipeFlags {
    std::vector<std::string> args;
    std::vector<std::string> limits;
};

// bf16=True is autocast over FP32 weights (amp-bf16), so BF16 weights come
// from the model's own dtype; FP32 master copies of them are what DeepSpeed's
// bf16 mode keeps in its optimizer.
RecipeFlags pure_bf16_flags(const PrecisionConfig& p) {
    if (p.master_weights)
        return {{"bf16=True", "deepspeed=\"ds_config.json\""},
                {"BF16 weights with FP32 master copies are DeepSpeed's bf16 mode: ds_config.json holds "
                 "{\"bf16\": {\"enabled\": true}}; bf16=True alone is autocast over FP32 weights (amp-bf16)."}};
    return {{},
            {"TrainingArguments has no pure-BF16 switch (bf16=True is autocast over FP32 weights): load the "
             "model with model.to(torch.bfloat16) and leave bf16 off, so the optimizer updates the BF16 weights "
             "themselves (PyTorch's optimizers then keep their state in BF16 too; the lab keeps it in FP32)."}};
}

RecipeFlags recipe_flags(const PrecisionConfig& p) {
    switch (p.recipe) {
        case Recipe::fp32: return {{}, {}};
        case Recipe::tf32: return {{"tf32=True"}, {}};
        case Recipe::amp_fp16: return {{"fp16=True"}, {}};
        case Recipe::amp_bf16: return {{"bf16=True"}, {}};
        case Recipe::fp16_pure:
            // Apex's O2 keeps FP16 weights with FP32 master copies, O3 FP16 alone.
            return {{"fp16=True", "half_precision_backend=\"apex\"",
                     std::string("fp16_opt_level=\"") + (p.master_weights ? "O2" : "O3") + "\""},
                    {"Weights stored in FP16 need NVIDIA Apex: O2 keeps FP32 master weights, O3 none."}};
        case Recipe::bf16_pure: return pure_bf16_flags(p);
        case Recipe::fp8:
            return {{"bf16=True"},
                    {"TrainingArguments has no FP8 switch: FP8 matmuls come from Accelerate's "
                     "mixed_precision=\"fp8\" with Transformer Engine or torchao; the rest runs in BF16 here."}};
    }
    return {};
}

// Where the run's scaler differs from the one the Trainer builds for fp16.
std::vector<std::string> trainer_scaler_limits(const PrecisionConfig& p, const ScalerConfig& s) {
    const bool scales = p.recipe == Recipe::amp_fp16 || p.recipe == Recipe::fp16_pure;
    if (!scales) {
        if (s.kind == ScalerKind::none) return {};
        return {"Without fp16 the Trainer scales no loss; this run's " + std::string(scaler_kind_name(s.kind)) +
                " scaler has no counterpart."};
    }
    if (s == ScalerConfig{}) return {};
    return {"TrainingArguments cannot set the loss scaler: the Trainer uses GradScaler's defaults (2^16, "
            "growth every 2000 steps); for this run's settings use the GradScaler call in a loop of your "
            "own, or the DeepSpeed fp16 block through TrainingArguments(deepspeed=...)."};
}

}  // namespace

ScalerSnippet huggingface_training_arguments(const PrecisionConfig& p, const ScalerConfig& s) {
    RecipeFlags flags = recipe_flags(p);
    for (std::string& limit : trainer_scaler_limits(p, s)) flags.limits.push_back(std::move(limit));
    std::vector<std::string> args{"output_dir=\"out\""};
    args.insert(args.end(), flags.args.begin(), flags.args.end());
    return {comment_lines(flags.limits) + python_call(kTrainingArguments, args), joined(flags.limits)};
}

ScalerSnippet pytorch_grad_scaler(const ScalerConfig& s) {
    switch (s.kind) {
        case ScalerKind::none:
            return {comment_lines({"No loss scaling: step() applies every step, inf/NaN gradients included."}) +
                        python_call(kGradScaler, {"\"cuda\"", "enabled=False"}),
                    ""};
        case ScalerKind::static_scale: return pytorch_static(s);
        case ScalerKind::dynamic: return {python_call(kGradScaler, grad_scaler_args(s)), ""};
        case ScalerKind::hysteresis: {
            const std::vector<std::string> limits = hysteresis_limits(s);
            return {comment_lines(limits) + python_call(kGradScaler, grad_scaler_args(s)), joined(limits)};
        }
    }
    return {};
}

ScalerSnippet deepspeed_fp16_block(const ScalerConfig& s) {
    nlohmann::ordered_json fp16;
    fp16["enabled"] = true;
    std::vector<std::string> notes;
    switch (s.kind) {
        case ScalerKind::none: none_fields(fp16, notes); break;
        case ScalerKind::static_scale: static_fields(s, fp16); break;
        case ScalerKind::dynamic:
            // GradScaler's rule backs off on every overflow (hysteresis 1) and has no floor.
            dynamic_fields(s, 1, fp16, notes);
            notes.push_back("DeepSpeed floors the scale at min_loss_scale (" + shortest_text(s.min_scale) +
                            ") and stops the run on an overflow there; the dynamic scaler has no floor.");
            break;
        case ScalerKind::hysteresis:
            dynamic_fields(s, s.hysteresis, fp16, notes);
            hysteresis_notes(s, notes);
            break;
    }
    nlohmann::ordered_json block;
    block["fp16"] = std::move(fp16);
    return {block.dump(2) + "\n", joined(notes)};
}

}  // namespace plab
