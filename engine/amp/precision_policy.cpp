#include "engine/amp/precision_policy.h"

namespace plab {

PassFormats mixed_pass_formats(const PrecisionConfig& config, int layer_count) {
    PassFormats f = PassFormats::uniform(recipe_compute_format(config.recipe), layer_count);
    for (int i = 0; i < layer_count; ++i) {
        const auto it = config.layer_overrides.find("fc" + std::to_string(i + 1));
        if (it != config.layer_overrides.end()) f.layer_compute[static_cast<std::size_t>(i)] = it->second;
    }
    f.fp32_layer_norm = config.keeps_fp32(Fp32Op::layer_norm);
    f.fp32_loss = config.keeps_fp32(Fp32Op::softmax_cross_entropy);
    return f;
}

PassFormats twin_pass_formats(int layer_count) { return PassFormats::uniform(FormatId::fp32, layer_count); }

}  // namespace plab
