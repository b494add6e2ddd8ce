#include "engine/amp/precision_policy.h"

namespace plab {

PassFormats mixed_pass_formats(const PrecisionConfig& config, int layer_count) {
    std::vector<std::string> names;
    for (int i = 0; i < layer_count; ++i) names.push_back("fc" + std::to_string(i + 1));
    return mixed_pass_formats(config, names);
}

PassFormats mixed_pass_formats(const PrecisionConfig& config, const std::vector<std::string>& layer_names) {
    const auto layer_count = static_cast<int>(layer_names.size());
    // FP8 layers store what their matmuls write in FP32: the FP8 casts happen at the matmul inputs.
    const bool fp8 = recipe_uses_fp8(config.recipe);
    PassFormats f = PassFormats::uniform(fp8 ? FormatId::fp32 : recipe_compute_format(config.recipe), layer_count);
    if (fp8) f.layer_fp8.assign(static_cast<std::size_t>(layer_count), true);
    for (int i = 0; i < layer_count; ++i) {
        const auto it = config.layer_overrides.find(layer_names[static_cast<std::size_t>(i)]);
        if (it == config.layer_overrides.end()) continue;
        f.layer_compute[static_cast<std::size_t>(i)] = it->second;
        if (fp8) f.layer_fp8[static_cast<std::size_t>(i)] = false;  // an override keeps the layer out of FP8
    }
    f.fp32_layer_norm = config.keeps_fp32(Fp32Op::layer_norm);
    f.fp32_batch_norm = config.keeps_fp32(Fp32Op::batch_norm);
    f.fp32_loss = config.keeps_fp32(Fp32Op::softmax_cross_entropy);
    f.fp32_mse = config.keeps_fp32(Fp32Op::mse);
    f.attention.fp32_softmax = config.keeps_fp32(Fp32Op::softmax);  // the attention block's scaled softmax
    f.accumulate = accumulation_format(config.accumulate);
    f.attention.accumulate = f.accumulate;
    return f;
}

PassFormats twin_pass_formats(int layer_count) { return PassFormats::uniform(FormatId::fp32, layer_count); }

}  // namespace plab
