#include "engine/model/attention.h"

#include "engine/common/error.h"

namespace plab {

SelfAttention::SelfAttention(Backend& backend, std::string name, int width, int tokens, float logit_scale,
                             FormatId weight_format, bool master_weights)
    : name_(std::move(name)),
      tokens_(tokens),
      logit_scale_(logit_scale),
      q_(backend, name_ + ".q", width, width, weight_format, master_weights),
      k_(backend, name_ + ".k", width, width, weight_format, master_weights),
      v_(backend, name_ + ".v", width, width, weight_format, master_weights),
      out_(backend, name_ + ".out", width, width, weight_format, master_weights) {
    if (tokens < 1 || width % tokens != 0)
        throw Error(name_ + ": width " + std::to_string(width) + " does not split into " + std::to_string(tokens) +
                    " tokens");
}

std::vector<Parameter*> SelfAttention::parameters() {
    std::vector<Parameter*> out;
    for (Linear* l : projections()) {
        out.push_back(&l->weight);
        out.push_back(&l->bias);
    }
    return out;
}

void SelfAttention::ensure_buffers(Backend& backend, int rows, const AttentionFormats& formats) {
    if (rows == rows_ && formats == formats_) return;
    rows_ = -1;  // set once every buffer is made (Mlp::ensure_buffers)
    formats_ = formats;
    const FormatId c = formats.compute;
    const Shape values{rows, q_.out_features()};
    const Shape pairs{rows, tokens_ * tokens_};
    for (Tensor* t : {&q_x_, &k_x_, &v_x_, &mixed_, &projected_, &dq_, &dk_, &dv_, &dmixed_, &dx_part_})
        *t = backend.allocate(values, c);
    for (Tensor* t : {&scores_, &dscores_, &dprobs_}) *t = backend.allocate(pairs, c);
    probs_ = backend.allocate(pairs, formats.fp32_softmax ? FormatId::fp32 : c);
    rows_ = rows;
}

void SelfAttention::notify(OpObserver* observer, Phase phase, std::string_view op, const Tensor& out,
                           const Tensor* in, float scale) const {
    if (observer) observer->after_op({phase, name_, op, out, in, scale});
}

void SelfAttention::forward(Backend& backend, const Tensor& x, Tensor& y, const AttentionFormats& formats,
                            OpObserver* observer) {
    ensure_buffers(backend, x.rows(), formats);
    const FormatId c = formats.compute;
    q_.forward(backend, x, q_x_, c);
    notify(observer, Phase::forward, "q_proj", q_x_, &x, 1.0f);
    k_.forward(backend, x, k_x_, c);
    notify(observer, Phase::forward, "k_proj", k_x_, &x, 1.0f);
    v_.forward(backend, x, v_x_, c);
    notify(observer, Phase::forward, "v_proj", v_x_, &x, 1.0f);
    backend.token_scores(q_x_, k_x_, tokens_, scores_);
    notify(observer, Phase::forward, "scores", scores_, &q_x_, 1.0f);
    backend.scaled_softmax(scores_, logit_scale_, tokens_, formats.fp32_softmax ? FormatId::fp32 : c, probs_);
    notify(observer, Phase::forward, "softmax", probs_, &scores_, 1.0f);
    backend.token_mix(probs_, v_x_, tokens_, mixed_);
    notify(observer, Phase::forward, "mix", mixed_, &probs_, 1.0f);
    out_.forward(backend, mixed_, projected_, c);
    notify(observer, Phase::forward, "out_proj", projected_, &mixed_, 1.0f);
    backend.convert(x, y);
    backend.accumulate(projected_, y, false);
    notify(observer, Phase::forward, "residual", y, &projected_, 1.0f);
}

void SelfAttention::backward(Backend& backend, const Tensor& x, const Tensor& dy, Tensor& dx, float loss_scale,
                             OpObserver* observer) {
    if (rows_ != x.rows()) throw Error(name_ + ": backward without a forward on this batch");
    const FormatId c = formats_.compute;
    out_.backward(backend, mixed_, dy, &dmixed_, c);
    notify(observer, Phase::backward, "out_proj_grad", dmixed_, &dy, loss_scale);
    backend.token_mix_backward(probs_, v_x_, dmixed_, tokens_, dprobs_, dv_);
    notify(observer, Phase::backward, "mix_grad", dprobs_, &dmixed_, loss_scale);
    backend.scaled_softmax_backward(probs_, dprobs_, logit_scale_, tokens_, dscores_);
    notify(observer, Phase::backward, "softmax_grad", dscores_, &dprobs_, loss_scale);
    backend.token_scores_backward(q_x_, k_x_, dscores_, tokens_, dq_, dk_);
    notify(observer, Phase::backward, "scores_grad", dq_, &dscores_, loss_scale);
    // The residual passes dy straight through; each projection adds its share.
    backend.convert(dy, dx);
    for (auto [layer, grad] : {std::pair{&q_, &dq_}, std::pair{&k_, &dk_}, std::pair{&v_, &dv_}}) {
        layer->backward(backend, x, *grad, &dx_part_, c);
        backend.accumulate(dx_part_, dx, false);
    }
    notify(observer, Phase::backward, "input_grad", dx, &dy, loss_scale);
}

}  // namespace plab
