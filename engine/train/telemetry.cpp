#include "engine/train/telemetry.h"

#include <cmath>

namespace plab {

void collect_layer_stats(Backend& backend, const Mlp& model, float scale, std::vector<LayerRecord>& layers) {
    layers.resize(model.linears().size());
    for (int i = 0; i < model.layer_count(); ++i) {
        const Linear& linear = model.linears()[static_cast<std::size_t>(i)];
        LayerRecord& r = layers[static_cast<std::size_t>(i)];
        r.weight = backend.tensor_stats(linear.weight.value, 1.0);
        r.grad = backend.tensor_stats(linear.weight.grad, 1.0);
        r.grad_unscaled = backend.tensor_stats(linear.weight.grad, scale);
        r.act = backend.tensor_stats(model.activation(i), 1.0);
        r.act_grad = backend.tensor_stats(model.activation_grad(i), 1.0);
        r.act_grad_unscaled = backend.tensor_stats(model.activation_grad(i), scale);
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

void compare_with_twin(Backend& backend, const Mlp& model, const Mlp& twin, std::vector<LayerRecord>& layers) {
    layers.resize(model.linears().size());
    for (std::size_t i = 0; i < layers.size(); ++i) {
        const Parameter& w = model.linears()[i].weight;
        const Parameter& ref = twin.linears()[i].weight;
        const TensorComparison weights = backend.compare(w.target(), ref.target());
        const TensorComparison grads = backend.compare(w.master_grad, ref.master_grad);
        layers[i].weight_rel_dist = relative_distance(weights);
        layers[i].grad_rel_dist = relative_distance(grads);
        layers[i].grad_cos = cosine(grads);
    }
}

std::vector<LayerHistograms> collect_histograms(Backend& backend, const Mlp& model, float scale) {
    std::vector<LayerHistograms> out(model.linears().size());
    for (int i = 0; i < model.layer_count(); ++i) {
        const Linear& linear = model.linears()[static_cast<std::size_t>(i)];
        LayerHistograms& h = out[static_cast<std::size_t>(i)];
        backend.add_to_histogram(linear.weight.value, 1.0, h.weight);
        backend.add_to_histogram(linear.weight.grad, 1.0, h.grad);
        backend.add_to_histogram(linear.weight.grad, scale, h.grad_unscaled);
        backend.add_to_histogram(model.activation(i), 1.0, h.act);
        backend.add_to_histogram(model.activation_grad(i), 1.0, h.act_grad);
        backend.add_to_histogram(model.activation_grad(i), scale, h.act_grad_unscaled);
    }
    return out;
}

}  // namespace plab
