#include "engine/model/mlp.h"

#include "engine/common/error.h"

namespace plab {

std::string_view phase_name(Phase phase) {
    switch (phase) {
        case Phase::forward: return "forward";
        case Phase::loss: return "loss";
        case Phase::backward: return "backward";
        case Phase::unscale: return "unscale";
        case Phase::update: return "update";
    }
    return "?";
}

Mlp::Mlp(Backend& backend, const MlpSpec& spec) : Model(backend), spec_(spec) {
    if (spec.widths.size() < 2) throw Error("model.widths: need at least an input and an output width");
    if (spec.layer_norm && spec.batch_norm)
        throw Error("model.layer_norm, model.batch_norm: a hidden layer takes one norm; set one of them to false");
    const int layers = static_cast<int>(spec.widths.size()) - 1;
    for (int i = 0; i < layers; ++i) {
        const std::string index = std::to_string(i + 1);
        linears_.emplace_back(backend, "fc" + index, spec.widths[i], spec.widths[i + 1], spec.weight_format,
                              spec.master_weights);
        if (spec.layer_norm && i + 1 < layers)
            norms_.emplace_back(backend, "ln" + index, spec.widths[i + 1], spec.weight_format, spec.master_weights);
        if (spec.batch_norm && i + 1 < layers)
            batch_norms_.emplace_back(backend, "bn" + index, spec.widths[i + 1], spec.weight_format,
                                      spec.master_weights);
    }
    if (spec.attention_tokens > 0) {
        if (layers < 2) throw Error("model.attention_tokens: the attention block needs a hidden layer to sit on");
        attention_.emplace(backend, "attn", spec.widths[1], spec.attention_tokens, spec.attention_logit_scale,
                           spec.weight_format, spec.master_weights);
    }
}

std::vector<Parameter*> Mlp::parameters() {
    std::vector<Parameter*> out;
    for (std::size_t i = 0; i < linears_.size(); ++i) {
        out.push_back(&linears_[i].weight);
        out.push_back(&linears_[i].bias);
        if (i < norms_.size()) {
            out.push_back(&norms_[i].gamma);
            out.push_back(&norms_[i].beta);
        }
        if (i < batch_norms_.size()) {
            out.push_back(&batch_norms_[i].gamma);
            out.push_back(&batch_norms_[i].beta);
        }
        if (i == 0 && attention_)
            for (Parameter* p : attention_->parameters()) out.push_back(p);
    }
    return out;
}

std::vector<Tensor*> Mlp::running_state() {
    std::vector<Tensor*> out;
    for (BatchNorm& norm : batch_norms_) {
        out.push_back(&norm.running_mean);
        out.push_back(&norm.running_var);
    }
    return out;
}

FormatId Mlp::norm_format(int i, const PassFormats& formats) const {
    const bool fp32 = spec_.batch_norm ? formats.fp32_batch_norm : formats.fp32_layer_norm;
    return fp32 ? FormatId::fp32 : formats.layer_compute[static_cast<std::size_t>(i)];
}

const Fp8Scales* Mlp::fp8_of(std::size_t layer, const PassFormats& formats) const {
    static const Fp8Scales kUnscaled;
    if (!formats.fp8(layer)) return nullptr;
    return layer < fp8_scales_.size() ? &fp8_scales_[layer] : &kUnscaled;
}

Mlp::PassBuffers Mlp::make_pass(Backend& backend, const PassKey& key) const {
    const PassFormats& formats = key.formats;
    if (formats.layer_compute.size() != linears_.size())
        throw Error("Mlp: " + std::to_string(formats.layer_compute.size()) + " layer formats for " +
                    std::to_string(linears_.size()) + " layers");
    PassBuffers pass;
    pass.layers.assign(linears_.size(), {});
    for (int i = 0; i < layer_count(); ++i) {
        LayerBuffers& b = pass.layers[static_cast<std::size_t>(i)];
        const FormatId compute = formats.layer_compute[static_cast<std::size_t>(i)];
        const Shape s{key.rows, linears_[static_cast<std::size_t>(i)].out_features()};
        b.pre = backend.allocate(s, compute);
        b.d_pre = backend.allocate(s, compute);
        if (i + 1 == layer_count()) break;
        const bool norm = has_norm();
        const FormatId act_format = norm ? norm_format(i, formats) : compute;
        if (norm) {
            b.normed = backend.allocate(s, act_format);
            b.d_normed = backend.allocate(s, act_format);
        }
        b.post = backend.allocate(s, act_format);
        b.d_post = backend.allocate(s, formats.layer_compute[static_cast<std::size_t>(i) + 1]);
    }
    if (attention_) {
        const Shape s{key.rows, linears_[0].out_features()};
        pass.attn_out = backend.allocate(s, formats.attention.compute);
        pass.attn_dout = backend.allocate(s, formats.layer_compute[1]);
    }
    pass.probs = backend.allocate({key.rows, linears_.back().out_features()}, loss_format(formats));
    return pass;
}

void Mlp::for_each_buffer(const std::function<void(const Tensor&)>& f) const {
    auto visit = [&](const Tensor& t) {
        if (!t.empty()) f(t);
    };
    passes_.for_each([&](const PassKey&, const PassBuffers& pass) {
        for (const LayerBuffers& b : pass.layers)
            for (const Tensor* t : {&b.pre, &b.normed, &b.post, &b.d_post, &b.d_normed, &b.d_pre}) visit(*t);
        visit(pass.attn_out);
        visit(pass.attn_dout);
        visit(pass.probs);
    });
    for (const LayerNorm& norm : norms_) norm.for_each_row_stat(visit);
    for (const BatchNorm& norm : batch_norms_) norm.for_each_stat(visit);
}

Mlp::PassBuffers& Mlp::pass() const {
    if (!passes_.current()) throw Error("Mlp: no forward pass yet");
    return *passes_.current();
}

FormatId Mlp::loss_format(const PassFormats& formats) const {
    const bool fp32 = spec_.loss == LossKind::cross_entropy ? formats.fp32_loss : formats.fp32_mse;
    return fp32 ? FormatId::fp32 : formats.layer_compute.back();
}

void Mlp::notify(OpObserver* observer, Phase phase, std::string_view layer, std::string_view op, const Tensor& out,
                 const Tensor* in, float scale) const {
    if (observer) observer->after_op({phase, layer, op, out, in, scale});
}

const Tensor& Mlp::forward_layers(Backend& backend, const Tensor& x, const PassFormats& formats,
                                  OpObserver* observer) {
    PassBuffers& pass =
        passes_.use(PassKey{x.rows(), formats}, [&](const PassKey& key) { return make_pass(backend, key); });
    const Tensor* input = &x;
    for (int i = 0; i < layer_count(); ++i) {
        const auto u = static_cast<std::size_t>(i);
        LayerBuffers& b = pass.layers[u];
        linears_[u].forward(backend, *input, b.pre, formats.matmul(u), fp8_of(u, formats));
        notify(observer, Phase::forward, linears_[u].name(), "matmul", b.pre, input, 1.0f);
        if (i + 1 == layer_count()) break;
        const Tensor* act_in = &b.pre;
        if (has_norm()) {
            norm_forward(backend, u, b, norm_format(i, formats), observer);
            act_in = &b.normed;
        }
        backend.activation_forward(spec_.activation, *act_in, b.post);
        notify(observer, Phase::forward, linears_[u].name(), activation_name(spec_.activation), b.post, act_in, 1.0f);
        input = &b.post;
        if (i == 0 && attention_) {
            attention_->forward(backend, b.post, pass.attn_out, formats.attention, observer);
            input = &pass.attn_out;
        }
    }
    return pass.layers.back().pre;
}

void Mlp::forward_into(Backend& backend, const Tensor& x, const Tensor& targets, const PassFormats& formats,
                       Tensor& loss, OpObserver* observer) {
    const Tensor& logits = forward_layers(backend, x, formats, observer);
    Tensor& probs = pass().probs;
    const FormatId compute = loss_format(formats);
    if (spec_.loss == LossKind::cross_entropy) {
        backend.softmax_cross_entropy_into(logits, targets, compute, probs, loss);
        notify(observer, Phase::loss, "loss", "softmax", probs, &logits, 1.0f);
        notify(observer, Phase::loss, "loss", "cross_entropy", loss, &logits, 1.0f);
    } else {
        backend.convert(logits, probs);
        backend.mse_loss_into(logits, targets, compute, loss);
        notify(observer, Phase::loss, "loss", "mse", loss, &logits, 1.0f);
    }
}

void Mlp::backward(Backend& backend, const Tensor& x, const Tensor& targets, float loss_scale,
                   OpObserver* observer) {
    if (!passes_.current() || passes_.current_key()->rows != x.rows())
        throw Error("Mlp::backward: call forward on this batch first");
    PassBuffers& pass = *passes_.current();
    const PassFormats& formats = passes_.current_key()->formats;
    const Tensor& probs = pass.probs;
    LayerBuffers& top = pass.layers.back();
    if (spec_.loss == LossKind::cross_entropy)
        backend.softmax_cross_entropy_backward(probs, targets, loss_scale, top.d_pre);
    else
        backend.mse_loss_backward(top.pre, targets, loss_scale, top.d_pre);
    notify(observer, Phase::backward, "loss", "loss_grad", top.d_pre, &probs, loss_scale);
    for (int i = layer_count() - 1; i >= 0; --i) {
        const auto u = static_cast<std::size_t>(i);
        Linear& layer = linears_[u];
        const Tensor& dy = pass.layers[u].d_pre;
        const bool above_attention = i == 1 && attention_;
        const Tensor& input = i == 0 ? x : above_attention ? pass.attn_out : pass.layers[u - 1].post;
        Tensor* dx = i == 0 ? nullptr : above_attention ? &pass.attn_dout : &pass.layers[u - 1].d_post;
        layer.backward(backend, input, dy, dx, formats.matmul(u), fp8_of(u, formats));
        notify(observer, Phase::backward, layer.name(), "weight_grad", layer.weight.grad, &dy, loss_scale);
        notify(observer, Phase::backward, layer.name(), "bias_grad", layer.bias.grad, &dy, loss_scale);
        if (!dx) break;
        notify(observer, Phase::backward, layer.name(), "input_grad", *dx, &dy, loss_scale);
        LayerBuffers& below = pass.layers[u - 1];
        if (above_attention)
            attention_->backward(backend, below.post, pass.attn_dout, below.d_post, loss_scale, observer);
        const std::string& below_name = linears_[u - 1].name();
        if (!has_norm()) {
            backend.activation_backward(spec_.activation, below.pre, below.d_post, below.d_pre);
            notify(observer, Phase::backward, below_name, "activation_grad", below.d_pre, &below.d_post, loss_scale);
            continue;
        }
        backend.activation_backward(spec_.activation, below.normed, below.d_post, below.d_normed);
        notify(observer, Phase::backward, below_name, "activation_grad", below.d_normed, &below.d_post, loss_scale);
        norm_backward(backend, u - 1, below, norm_format(i - 1, formats), loss_scale, observer);
    }
}

void Mlp::norm_forward(Backend& backend, std::size_t u, LayerBuffers& b, FormatId compute, OpObserver* observer) {
    if (spec_.batch_norm) {
        batch_norms_[u].forward(backend, b.pre, compute, evaluating(), b.normed);
        notify(observer, Phase::forward, batch_norms_[u].name(), "batch_norm", b.normed, &b.pre, 1.0f);
        return;
    }
    norms_[u].forward(backend, b.pre, compute, b.normed);
    notify(observer, Phase::forward, norms_[u].name(), "layer_norm", b.normed, &b.pre, 1.0f);
}

// The parameter gradients are held in the norm's compute format, as the
// activation gradients around it are.
void Mlp::norm_backward(Backend& backend, std::size_t u, LayerBuffers& b, FormatId compute, float loss_scale,
                        OpObserver* observer) {
    if (spec_.batch_norm) {
        batch_norms_[u].backward(backend, b.pre, b.d_normed, compute, b.d_pre, compute);
        notify(observer, Phase::backward, batch_norms_[u].name(), "batch_norm_grad", b.d_pre, &b.d_normed,
               loss_scale);
        return;
    }
    norms_[u].backward(backend, b.pre, b.d_normed, compute, b.d_pre, compute);
    notify(observer, Phase::backward, norms_[u].name(), "layer_norm_grad", b.d_pre, &b.d_normed, loss_scale);
}

const Tensor& Mlp::activation(int i) const {
    const auto u = static_cast<std::size_t>(i);
    return i + 1 == layer_count() ? pass().layers[u].pre : pass().layers[u].post;
}

const Tensor& Mlp::layer_input(int i, const Tensor& x) const {
    if (i == 0) return x;
    if (i == 1 && attention_) return pass().attn_out;
    return activation(i - 1);
}

int Mlp::layer_of(const Parameter& p) const {
    if (p.name.starts_with("attn.")) return 0;
    return std::stoi(p.name.substr(2, p.name.find('.') - 2)) - 1;
}

const Tensor& Mlp::activation_grad(int i) const { return pass().layers[static_cast<std::size_t>(i)].d_pre; }

const Tensor& Mlp::outputs() const { return pass().probs; }

}  // namespace plab
