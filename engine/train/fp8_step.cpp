#include "engine/train/fp8_step.h"

#include <algorithm>

namespace plab {

bool uses_fp8(const PassFormats& formats) {
    return std::find(formats.layer_fp8.begin(), formats.layer_fp8.end(), true) != formats.layer_fp8.end();
}

void observe_fp8_amaxes(Backend& backend, const Model& model, const PassFormats& formats, const Tensor& x,
                        Fp8Scaling& scaling) {
    for (int i = 0; i < model.layer_count(); ++i) {
        const auto u = static_cast<std::size_t>(i);
        if (!formats.fp8(u)) continue;
        scaling.observe(i, Fp8Tensor::input, backend.finite_amax(model.layer_input(i, x)));
        scaling.observe(i, Fp8Tensor::weight, backend.finite_amax(model.layer_weight(i).value));
        scaling.observe(i, Fp8Tensor::grad, backend.finite_amax(model.activation_grad(i)));
    }
}

void queue_fp8_stats(Backend& backend, const Model& model, const PassFormats& formats, std::vector<LayerRecord>& layers) {
    const std::vector<Fp8Scales>& scales = model.fp8_scales();
    for (std::size_t i = 0; i < layers.size(); ++i) {
        if (!formats.fp8(i)) continue;
        Fp8LayerRecord& r = layers[i].fp8.emplace();
        r.scales = i < scales.size() ? scales[i] : Fp8Scales{};
        // x / (1 / scale) is x * scale exactly: the scale is a power of two.
        backend.queue_telemetry({.x = &model.activation_grad(static_cast<int>(i)),
                                 .divisor = 1.0 / static_cast<double>(r.scales.grad),
                                 .stats_divided = &r.grad_scaled});
    }
}

}  // namespace plab
