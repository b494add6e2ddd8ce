#include "engine/train/telemetry.h"

#include <cmath>

#include "engine/model/telemetry_layers.h"

namespace plab {

namespace {

// The unscaled view divides by the loss scale; a dynamic scaler that backs
// off on every step takes the scale down to 0 (FP32 underflow), where that
// view has no meaning: it is left empty (count 0) instead of failing the step.
bool unscalable(float scale) { return scale > 0 && std::isfinite(scale); }

}  // namespace

void queue_pass_stats(Backend& backend, const Model& model, float scale, std::vector<LayerRecord>& layers) {
    layers.resize(static_cast<std::size_t>(telemetry_layer_count(model)));
    const bool divide = unscalable(scale);
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const int layer = static_cast<int>(i);
        LayerRecord& r = layers[i];
        r.act = {};
        r.act_grad = {};
        r.act_grad_unscaled = {};
        r.grad_unscaled = {};
        if (const Tensor* act = telemetry_activation(model, layer)) {
            backend.queue_telemetry({.x = act, .stats = &r.act});
            backend.queue_telemetry({.x = telemetry_activation_grad(model, layer),
                                     .divisor = divide ? scale : 1.0,
                                     .stats = &r.act_grad,
                                     .stats_divided = divide ? &r.act_grad_unscaled : nullptr});
        }
        backend.queue_telemetry({.x = &telemetry_layer_weight(model, layer).grad,
                                 .divisor = divide ? scale : 1.0,
                                 .stats = &r.grad,
                                 .stats_divided = divide ? &r.grad_unscaled : nullptr});
    }
}

void queue_weight_stats(Backend& backend, const Model& model, std::vector<LayerRecord>& layers) {
    layers.resize(static_cast<std::size_t>(telemetry_layer_count(model)));
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const Parameter& weight = telemetry_layer_weight(model, static_cast<int>(i));
        backend.queue_telemetry({.x = &weight.value, .stats = &layers[i].weight});
    }
}

namespace {
float relative_distance(const TensorComparison& c) {
    return static_cast<float>(c.b_sq > 0 ? std::sqrt(c.diff_sq / c.b_sq) : std::sqrt(c.diff_sq));
}
float cosine(const TensorComparison& c) {
    const double norms = std::sqrt(c.a_sq) * std::sqrt(c.b_sq);
    return static_cast<float>(norms > 0 ? c.dot / norms : (c.a_sq == c.b_sq ? 1.0 : 0.0));
}
}  // namespace

void queue_twin_comparison(Backend& backend, const Model& model, const Model& twin, std::vector<TensorComparison>& sums) {
    const auto layers = static_cast<std::size_t>(telemetry_layer_count(model));
    sums.assign(2 * layers, TensorComparison{});  // before queueing: the targets must not move
    for (std::size_t i = 0; i < layers; ++i) {
        const Parameter& w = telemetry_layer_weight(model, static_cast<int>(i));
        const Parameter& ref = telemetry_layer_weight(twin, static_cast<int>(i));
        backend.queue_compare(w.target(), ref.target(), &sums[2 * i]);
        backend.queue_compare(w.master_grad, ref.master_grad, &sums[2 * i + 1]);
    }
}

void set_twin_comparison(const std::vector<TensorComparison>& sums, std::vector<LayerRecord>& layers) {
    layers.resize(sums.size() / 2);
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const TensorComparison& weights = sums[2 * i];
        const TensorComparison& grads = sums[2 * i + 1];
        layers[i].weight_rel_dist = relative_distance(weights);
        layers[i].grad_rel_dist = relative_distance(grads);
        layers[i].grad_cos = cosine(grads);
    }
}

namespace {

// One of the twin's gradients: as it is, and times `scale` as x / (1 / scale)
// (exact for a power-of-two scale, as every dynamic scaler keeps).
void queue_twin_gradient(Backend& backend, const Tensor& x, float scale, TensorStats& as_is, TensorStats& scaled,
                         Log2Histogram& hist_as_is, Log2Histogram& hist_scaled) {
    const bool multiply = unscalable(scale);
    backend.queue_telemetry({.x = &x,
                             .divisor = multiply ? 1.0 / static_cast<double>(scale) : 1.0,
                             .stats = &as_is,
                             .stats_divided = multiply ? &scaled : nullptr,
                             .hist = &hist_as_is,
                             .hist_divided = multiply ? &hist_scaled : nullptr});
}

}  // namespace

void queue_twin_view(Backend& backend, const Model& twin, float scale, TwinView& out) {
    const auto layers = static_cast<std::size_t>(telemetry_layer_count(twin));
    out.layers.assign(layers, LayerRecord{});  // before queueing: the targets must not move
    out.histograms.assign(layers, LayerHistograms{});
    for (std::size_t i = 0; i < layers; ++i) {
        const int layer = static_cast<int>(i);
        const Parameter& weight = telemetry_layer_weight(twin, layer);
        LayerRecord& r = out.layers[i];
        LayerHistograms& h = out.histograms[i];
        backend.queue_telemetry({.x = &weight.value, .stats = &r.weight, .hist = &h.weight});
        queue_twin_gradient(backend, weight.grad, scale, r.grad_unscaled, r.grad, h.grad_unscaled, h.grad);
        const Tensor* act = telemetry_activation(twin, layer);
        if (!act) continue;
        backend.queue_telemetry({.x = act, .stats = &r.act, .hist = &h.act});
        queue_twin_gradient(backend, *telemetry_activation_grad(twin, layer), scale, r.act_grad_unscaled, r.act_grad,
                            h.act_grad_unscaled, h.act_grad);
    }
}

void queue_histograms(Backend& backend, const Model& model, float scale, std::vector<LayerHistograms>& out) {
    out.assign(static_cast<std::size_t>(telemetry_layer_count(model)), LayerHistograms{});
    const bool divide = unscalable(scale);
    for (std::size_t i = 0; i < out.size(); ++i) {
        const int layer = static_cast<int>(i);
        const Parameter& weight = telemetry_layer_weight(model, layer);
        LayerHistograms& h = out[i];
        backend.queue_telemetry({.x = &weight.value, .hist = &h.weight});
        backend.queue_telemetry({.x = &weight.grad,
                                 .divisor = divide ? scale : 1.0,
                                 .hist = &h.grad,
                                 .hist_divided = divide ? &h.grad_unscaled : nullptr});
        const Tensor* act = telemetry_activation(model, layer);
        if (!act) continue;
        backend.queue_telemetry({.x = act, .hist = &h.act});
        backend.queue_telemetry({.x = telemetry_activation_grad(model, layer),
                                 .divisor = divide ? scale : 1.0,
                                 .hist = &h.act_grad,
                                 .hist_divided = divide ? &h.act_grad_unscaled : nullptr});
    }
}

}  // namespace plab
