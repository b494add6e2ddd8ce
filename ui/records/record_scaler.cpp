#include "ui/records/record_scaler.h"

#include <cmath>
#include <map>
#include <optional>
#include <nlohmann/json.hpp>

#include "engine/amp/fp8_tensors.h"
#include "engine/common/error.h"
#include "engine/train/preset_io.h"

namespace plab {

using Json = nlohmann::json;

ScalerConfig recorded_scaler_config(const RecordedRun& run, const std::string& label) {
    const Json config = Json::parse(run.config_json);
    const auto scaler = config.find("scaler");
    if (scaler == config.end()) throw Error(label + ": the record's config has no scaler settings to replay from");
    return parse_run_config(Json{{"scaler", *scaler}}.dump(), label + " (its scaler settings)").scaler;
}

FormatId recorded_gradient_format(const RecordedRun& run) {
    const Json config = Json::parse(run.config_json);
    const std::string name = config.value("precision", Json::object()).value("recipe", std::string());
    const std::optional<Recipe> recipe = parse_recipe(name);
    if (recipe && recipe_uses_fp8(*recipe)) return kFp8GradFormat;
    if (recipe && recipe_compute_format(*recipe) == FormatId::bf16) return FormatId::bf16;  // amp-bf16, bf16-pure
    return FormatId::fp16;
}

std::vector<RecordedScaleStep> recorded_scale_steps(const RecordedRun& run, const std::string& label) {
    std::map<std::int64_t, bool> forward_nan;
    for (const RecordedNan& n : run.nans) forward_nan[n.step] = forward_nan[n.step] || n.phase == "forward";
    std::vector<RecordedScaleStep> steps;
    steps.reserve(run.steps.size());
    for (std::size_t i = 0; i < run.steps.size(); ++i) {
        const StepRecord& r = run.steps[i];
        if (std::isnan(run.grad_amax[i]))
            throw Error(label + ": step " + std::to_string(r.step) +
                        " has no gradient statistics (a record written with telemetry.enabled=false): "
                        "nothing to replay on");
        // Not the scale's doing: an overflow at scale 1 or below, a non-finite
        // loss (the forward pass overflowed), a NaN the record places in the forward pass.
        const bool unexplained = (r.found_inf && (r.scale <= 1.0f || !std::isfinite(r.loss))) ||
                                 (forward_nan.count(r.step) && forward_nan[r.step]);
        steps.push_back({r.step, r.scale, r.found_inf, run.grad_amax[i], unexplained});
    }
    return steps;
}

}  // namespace plab
