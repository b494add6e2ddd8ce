#pragma once
// The precision policy: from a recipe, its FP32 op list and per-layer
// overrides to the formats each op of a pass runs in (autocast's job).
#include <string>
#include <vector>

#include "engine/amp/pass_formats.h"
#include "engine/amp/precision_config.h"

namespace plab {

// Formats of the mixed-precision model's passes. Layer i is named "fc<i+1>";
// an override for it replaces the recipe's compute format for that layer
// (under fp8 it also takes the layer out of FP8).
PassFormats mixed_pass_formats(const PrecisionConfig& config, int layer_count);
// The same for a model whose layers have these names (an override names one).
PassFormats mixed_pass_formats(const PrecisionConfig& config, const std::vector<std::string>& layer_names);

// The FP32 twin computes everything in FP32.
PassFormats twin_pass_formats(int layer_count);

}  // namespace plab
