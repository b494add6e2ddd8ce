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

SelfAttention::Buffers SelfAttention::make_buffers(Backend& backend, const Key& key) const {
    const FormatId c = key.formats.compute;
    const Shape values{key.rows, q_.out_features()};
    const Shape pairs{key.rows, tokens_ * tokens_};
    Buffers b;
    for (Tensor* t : {&b.q_x, &b.k_x, &b.v_x, &b.mixed, &b.projected, &b.dq, &b.dk, &b.dv, &b.dmixed, &b.dx_part})
        *t = backend.allocate(values, c);
    for (Tensor* t : {&b.scores, &b.dscores, &b.dprobs}) *t = backend.allocate(pairs, c);
    b.probs = backend.allocate(pairs, key.formats.fp32_softmax ? FormatId::fp32 : c);
    return b;
}

const Tensor& SelfAttention::scores() const {
    static const Tensor none;
    return buffers_.current() ? buffers_.current()->scores : none;
}

const Tensor& SelfAttention::probs() const {
    static const Tensor none;
    return buffers_.current() ? buffers_.current()->probs : none;
}

void SelfAttention::notify(OpObserver* observer, Phase phase, std::string_view op, const Tensor& out,
                           const Tensor* in, float scale) const {
    if (observer) observer->after_op({phase, name_, op, out, in, scale});
}

void SelfAttention::forward(Backend& backend, const Tensor& x, Tensor& y, const AttentionFormats& formats,
                            OpObserver* observer) {
    Buffers& b = buffers_.use(Key{x.rows(), formats}, [&](const Key& key) { return make_buffers(backend, key); });
    const FormatId c = formats.compute;
    q_.forward(backend, x, b.q_x, formats.matmul());
    notify(observer, Phase::forward, "q_proj", b.q_x, &x, 1.0f);
    k_.forward(backend, x, b.k_x, formats.matmul());
    notify(observer, Phase::forward, "k_proj", b.k_x, &x, 1.0f);
    v_.forward(backend, x, b.v_x, formats.matmul());
    notify(observer, Phase::forward, "v_proj", b.v_x, &x, 1.0f);
    backend.token_scores(b.q_x, b.k_x, tokens_, b.scores);
    notify(observer, Phase::forward, "scores", b.scores, &b.q_x, 1.0f);
    backend.scaled_softmax(b.scores, logit_scale_, tokens_, formats.fp32_softmax ? FormatId::fp32 : c, false,
                           b.probs);
    notify(observer, Phase::forward, "softmax", b.probs, &b.scores, 1.0f);
    backend.token_mix(b.probs, b.v_x, tokens_, b.mixed);
    notify(observer, Phase::forward, "mix", b.mixed, &b.probs, 1.0f);
    out_.forward(backend, b.mixed, b.projected, formats.matmul());
    notify(observer, Phase::forward, "out_proj", b.projected, &b.mixed, 1.0f);
    backend.convert(x, y);
    backend.accumulate(b.projected, y, false);
    notify(observer, Phase::forward, "residual", y, &b.projected, 1.0f);
}

void SelfAttention::backward(Backend& backend, const Tensor& x, const Tensor& dy, Tensor& dx, float loss_scale,
                             OpObserver* observer) {
    const Key* key = buffers_.current_key();
    if (!key || key->rows != x.rows()) throw Error(name_ + ": backward without a forward on this batch");
    Buffers& b = *buffers_.current();
    const MatmulFormats projections = key->formats.matmul();
    out_.backward(backend, b.mixed, dy, &b.dmixed, projections);
    notify(observer, Phase::backward, "out_proj_grad", b.dmixed, &dy, loss_scale);
    backend.token_mix_backward(b.probs, b.v_x, b.dmixed, tokens_, b.dprobs, b.dv);
    notify(observer, Phase::backward, "mix_grad", b.dprobs, &b.dmixed, loss_scale);
    backend.scaled_softmax_backward(b.probs, b.dprobs, logit_scale_, tokens_, b.dscores);
    notify(observer, Phase::backward, "softmax_grad", b.dscores, &b.dprobs, loss_scale);
    backend.token_scores_backward(b.q_x, b.k_x, b.dscores, tokens_, b.dq, b.dk);
    notify(observer, Phase::backward, "scores_grad", b.dq, &b.dscores, loss_scale);
    // The residual passes dy straight through; each projection adds its share.
    backend.convert(dy, dx);
    for (auto [layer, grad] : {std::pair{&q_, &b.dq}, std::pair{&k_, &b.dk}, std::pair{&v_, &b.dv}}) {
        layer->backward(backend, x, *grad, &b.dx_part, projections);
        backend.accumulate(b.dx_part, dx, false);
    }
    notify(observer, Phase::backward, "input_grad", dx, &dy, loss_scale);
}

}  // namespace plab
