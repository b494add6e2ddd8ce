#include "engine/model/transformer_block.h"

#include "engine/common/error.h"

namespace plab {

namespace {

std::size_t at(BlockLinear l) { return static_cast<std::size_t>(l); }

}  // namespace

TransformerBlock::TransformerBlock(Backend& backend, std::string name, const BlockShape& shape,
                                   FormatId weight_format, bool master_weights)
    : name_(std::move(name)),
      shape_(shape),
      ln1_(backend, name_ + ".ln1", shape.width, weight_format, master_weights),
      q_(backend, linear_name(BlockLinear::q), shape.width, shape.width, weight_format, master_weights),
      k_(backend, linear_name(BlockLinear::k), shape.width, shape.width, weight_format, master_weights),
      v_(backend, linear_name(BlockLinear::v), shape.width, shape.width, weight_format, master_weights),
      proj_(backend, linear_name(BlockLinear::proj), shape.width, shape.width, weight_format, master_weights),
      ln2_(backend, name_ + ".ln2", shape.width, weight_format, master_weights),
      fc_(backend, linear_name(BlockLinear::fc), shape.width, 4 * shape.width, weight_format, master_weights),
      fc_proj_(backend, linear_name(BlockLinear::fc_proj), 4 * shape.width, shape.width, weight_format,
               master_weights) {
    if (shape.heads < 1 || shape.width % shape.heads != 0)
        throw Error(name_ + ": width " + std::to_string(shape.width) + " does not split into " +
                    std::to_string(shape.heads) + " heads");
    if (shape.context < 1) throw Error(name_ + ": context " + std::to_string(shape.context) + " is below 1");
}

std::vector<Linear*> TransformerBlock::linears() { return {&q_, &k_, &v_, &proj_, &fc_, &fc_proj_}; }

std::vector<const Linear*> TransformerBlock::linears() const {
    return {&q_, &k_, &v_, &proj_, &fc_, &fc_proj_};
}

std::vector<Parameter*> TransformerBlock::parameters() {
    std::vector<Parameter*> out{&ln1_.gamma, &ln1_.beta};
    for (Linear* l : {&q_, &k_, &v_, &proj_}) out.insert(out.end(), {&l->weight, &l->bias});
    out.insert(out.end(), {&ln2_.gamma, &ln2_.beta});
    for (Linear* l : {&fc_, &fc_proj_}) out.insert(out.end(), {&l->weight, &l->bias});
    return out;
}

TransformerBlock::BufferShapes TransformerBlock::buffer_shapes(int rows) const {
    const int sequences = rows / shape_.context;
    return {.tokens = {rows, shape_.width},
            .wide = {rows, 4 * shape_.width},
            .heads = {sequences * shape_.heads, shape_.context * (shape_.width / shape_.heads)},
            .pairs = {sequences * shape_.heads, shape_.context * shape_.context}};
}

// The forward half only: evaluation and generation never run a backward, and
// the gradients' buffers are as large again.
TransformerBlock::Buffers TransformerBlock::make_buffers(Backend& backend, const Key& key) const {
    const BlockFormats& f = key.formats;
    const BufferShapes s = buffer_shapes(key.rows);
    Buffers b;
    auto make = [&](Tensor& t, Shape shape, FormatId format) { t = backend.allocate(shape, format); };
    make(b.h1, s.tokens, f.norm1);
    make(b.q, s.tokens, f.of(BlockLinear::q));
    make(b.k, s.tokens, f.of(BlockLinear::k));
    make(b.v, s.tokens, f.of(BlockLinear::v));
    make(b.qh, s.heads, f.of(BlockLinear::q));
    make(b.kh, s.heads, f.of(BlockLinear::k));
    make(b.vh, s.heads, f.of(BlockLinear::v));
    make(b.scores, s.pairs, f.of(BlockLinear::q));
    make(b.probs, s.pairs, f.softmax);
    make(b.mixed_h, s.heads, f.of(BlockLinear::v));
    make(b.mixed, s.tokens, f.of(BlockLinear::v));
    make(b.attn_out, s.tokens, f.of(BlockLinear::proj));
    make(b.mid, s.tokens, f.stream);
    make(b.h2, s.tokens, f.norm2);
    make(b.fc, s.wide, f.of(BlockLinear::fc));
    make(b.act, s.wide, f.of(BlockLinear::fc));
    make(b.mlp_out, s.tokens, f.of(BlockLinear::fc_proj));
    return b;
}

// The backward half, made by the first backward on a batch shape.
void TransformerBlock::make_gradient_buffers(Backend& backend, const Key& key, Buffers& b) const {
    const BlockFormats& f = key.formats;
    const BufferShapes s = buffer_shapes(key.rows);
    const FormatId q = f.of(BlockLinear::q), k = f.of(BlockLinear::k), v = f.of(BlockLinear::v);
    const FormatId proj = f.of(BlockLinear::proj), fc = f.of(BlockLinear::fc), fc_proj = f.of(BlockLinear::fc_proj);
    auto make = [&](Tensor& t, Shape shape, FormatId format) { t = backend.allocate(shape, format); };
    make(b.d_h1, s.tokens, f.norm1);
    make(b.d_q, s.tokens, q);
    make(b.d_k, s.tokens, k);
    make(b.d_v, s.tokens, v);
    make(b.d_qh, s.heads, q);
    make(b.d_kh, s.heads, k);
    make(b.d_vh, s.heads, v);
    make(b.d_scores, s.pairs, q);
    make(b.d_probs, s.pairs, v);
    make(b.d_mixed_h, s.heads, proj);
    make(b.d_mixed, s.tokens, proj);
    make(b.d_attn_out, s.tokens, proj);
    make(b.d_h1_part, s.tokens, q);
    for (Tensor* t : {&b.d_mid, &b.d_mid_part, &b.d_x_part}) make(*t, s.tokens, f.stream);
    make(b.d_h2, s.tokens, fc);
    make(b.d_fc, s.wide, fc);
    make(b.d_act, s.wide, fc_proj);
    make(b.d_mlp_out, s.tokens, fc_proj);
}

void TransformerBlock::for_each_buffer(const std::function<void(const Tensor&)>& f) const {
    buffers_.for_each([&](const Key&, const Buffers& b) {
        for (const Tensor* t :
             {&b.h1, &b.q, &b.k, &b.v, &b.qh, &b.kh, &b.vh, &b.scores, &b.probs, &b.mixed_h, &b.mixed, &b.attn_out,
              &b.mid, &b.h2, &b.fc, &b.act, &b.mlp_out, &b.d_mlp_out, &b.d_act, &b.d_fc, &b.d_h2, &b.d_mid_part,
              &b.d_mid, &b.d_attn_out, &b.d_mixed, &b.d_mixed_h, &b.d_probs, &b.d_scores, &b.d_qh, &b.d_kh, &b.d_vh,
              &b.d_q, &b.d_k, &b.d_v, &b.d_h1_part, &b.d_h1, &b.d_x_part})
            if (!t->empty()) f(*t);
    });
    ln1_.for_each_row_stat(f);
    ln2_.for_each_row_stat(f);
}

TransformerBlock::Buffers& TransformerBlock::current(const Tensor& x) {
    const Key* key = buffers_.current_key();
    if (!key || key->rows != x.rows()) throw Error(name_ + ": backward without a forward on this batch");
    return *buffers_.current();
}

void TransformerBlock::notify(OpObserver* observer, Phase phase, std::string_view part, std::string_view op,
                              const Tensor& out, const Tensor* in, float scale) const {
    if (!observer) return;
    const std::string layer = name_ + "." + std::string(part);
    observer->after_op({phase, layer, op, out, in, scale});
}

void TransformerBlock::forward(Backend& backend, const Tensor& x, Tensor& out, const BlockFormats& formats,
                               const BlockFp8& fp8, OpObserver* observer) {
    if (x.rows() % shape_.context != 0)
        throw Error(name_ + ": " + std::to_string(x.rows()) + " rows are not whole sequences of " +
                    std::to_string(shape_.context));
    Buffers& b = buffers_.use(Key{x.rows(), formats}, [&](const Key& key) { return make_buffers(backend, key); });
    ln1_.forward(backend, x, formats.norm1, b.h1);
    notify(observer, Phase::forward, "ln1", "layer_norm", b.h1, &x, 1.0f);
    attention_forward(backend, b, formats, fp8, observer);
    backend.convert(x, b.mid);
    backend.accumulate(b.attn_out, b.mid, false);
    notify(observer, Phase::forward, "attn", "residual", b.mid, &b.attn_out, 1.0f);
    ln2_.forward(backend, b.mid, formats.norm2, b.h2);
    notify(observer, Phase::forward, "ln2", "layer_norm", b.h2, &b.mid, 1.0f);
    mlp_forward(backend, b, formats, fp8, observer);
    backend.convert(b.mid, out);
    backend.accumulate(b.mlp_out, out, false);
    notify(observer, Phase::forward, "mlp", "residual", out, &b.mlp_out, 1.0f);
}

void TransformerBlock::attention_forward(Backend& backend, Buffers& b, const BlockFormats& f, const BlockFp8& fp8,
                                         OpObserver* observer) {
    const int context = shape_.context, heads = shape_.heads;
    for (auto [l, y, yh] : {std::tuple{BlockLinear::q, &b.q, &b.qh}, std::tuple{BlockLinear::k, &b.k, &b.kh},
                            std::tuple{BlockLinear::v, &b.v, &b.vh}}) {
        Linear& layer = linear(l);
        layer.forward(backend, b.h1, *y, f.matmul(l), fp8[at(l)]);
        notify(observer, Phase::forward, layer.name().substr(name_.size() + 1), "matmul", *y, &b.h1, 1.0f);
        backend.split_heads(*y, context, heads, *yh);
    }
    backend.token_scores(b.qh, b.kh, context, b.scores);
    notify(observer, Phase::forward, "attn", "scores", b.scores, &b.qh, 1.0f);
    backend.scaled_softmax(b.scores, shape_.logit_scale, context, f.softmax, true, b.probs);
    notify(observer, Phase::forward, "attn", "softmax", b.probs, &b.scores, 1.0f);
    backend.token_mix(b.probs, b.vh, context, b.mixed_h);
    backend.merge_heads(b.mixed_h, context, heads, b.mixed);
    notify(observer, Phase::forward, "attn", "mix", b.mixed, &b.probs, 1.0f);
    proj_.forward(backend, b.mixed, b.attn_out, f.matmul(BlockLinear::proj), fp8[at(BlockLinear::proj)]);
    notify(observer, Phase::forward, "attn.proj", "matmul", b.attn_out, &b.mixed, 1.0f);
}

void TransformerBlock::mlp_forward(Backend& backend, Buffers& b, const BlockFormats& f, const BlockFp8& fp8,
                                   OpObserver* observer) {
    fc_.forward(backend, b.h2, b.fc, f.matmul(BlockLinear::fc), fp8[at(BlockLinear::fc)]);
    notify(observer, Phase::forward, "mlp.fc", "matmul", b.fc, &b.h2, 1.0f);
    backend.activation_forward(Activation::gelu, b.fc, b.act);
    notify(observer, Phase::forward, "mlp.fc", "gelu", b.act, &b.fc, 1.0f);
    fc_proj_.forward(backend, b.act, b.mlp_out, f.matmul(BlockLinear::fc_proj), fp8[at(BlockLinear::fc_proj)]);
    notify(observer, Phase::forward, "mlp.proj", "matmul", b.mlp_out, &b.act, 1.0f);
}

void TransformerBlock::backward(Backend& backend, const Tensor& x, const Tensor& dout, Tensor& dx,
                                const BlockFp8& fp8, float loss_scale, OpObserver* observer) {
    Buffers& b = current(x);
    const Key& key = *buffers_.current_key();
    if (!b.has_gradients()) make_gradient_buffers(backend, key, b);
    const BlockFormats& f = key.formats;
    // The residual passes dout straight to mid; the MLP branch adds its share.
    backend.convert(dout, b.d_mlp_out);
    mlp_backward(backend, b, f, fp8, loss_scale, observer);
    ln2_.backward(backend, b.mid, b.d_h2, f.norm2, b.d_mid_part, f.norm2);
    notify(observer, Phase::backward, "ln2", "layer_norm_grad", b.d_mid_part, &b.d_h2, loss_scale);
    backend.convert(dout, b.d_mid);
    backend.accumulate(b.d_mid_part, b.d_mid, false);
    backend.convert(b.d_mid, b.d_attn_out);
    attention_backward(backend, b, f, fp8, loss_scale, observer);
    ln1_.backward(backend, x, b.d_h1, f.norm1, b.d_x_part, f.norm1);
    notify(observer, Phase::backward, "ln1", "layer_norm_grad", b.d_x_part, &b.d_h1, loss_scale);
    backend.convert(b.d_mid, dx);
    backend.accumulate(b.d_x_part, dx, false);
    notify(observer, Phase::backward, "attn", "residual_grad", dx, &dout, loss_scale);
}

void TransformerBlock::mlp_backward(Backend& backend, Buffers& b, const BlockFormats& f, const BlockFp8& fp8,
                                    float loss_scale, OpObserver* observer) {
    fc_proj_.backward(backend, b.act, b.d_mlp_out, &b.d_act, f.matmul(BlockLinear::fc_proj),
                      fp8[at(BlockLinear::fc_proj)]);
    notify(observer, Phase::backward, "mlp.proj", "input_grad", b.d_act, &b.d_mlp_out, loss_scale);
    backend.activation_backward(Activation::gelu, b.fc, b.d_act, b.d_fc);
    notify(observer, Phase::backward, "mlp.fc", "activation_grad", b.d_fc, &b.d_act, loss_scale);
    fc_.backward(backend, b.h2, b.d_fc, &b.d_h2, f.matmul(BlockLinear::fc), fp8[at(BlockLinear::fc)]);
    notify(observer, Phase::backward, "mlp.fc", "input_grad", b.d_h2, &b.d_fc, loss_scale);
}

void TransformerBlock::attention_backward(Backend& backend, Buffers& b, const BlockFormats& f, const BlockFp8& fp8,
                                          float loss_scale, OpObserver* observer) {
    const int context = shape_.context, heads = shape_.heads;
    proj_.backward(backend, b.mixed, b.d_attn_out, &b.d_mixed, f.matmul(BlockLinear::proj), fp8[at(BlockLinear::proj)]);
    notify(observer, Phase::backward, "attn.proj", "input_grad", b.d_mixed, &b.d_attn_out, loss_scale);
    backend.split_heads(b.d_mixed, context, heads, b.d_mixed_h);
    backend.token_mix_backward(b.probs, b.vh, b.d_mixed_h, context, b.d_probs, b.d_vh);
    notify(observer, Phase::backward, "attn", "mix_grad", b.d_probs, &b.d_mixed_h, loss_scale);
    backend.scaled_softmax_backward(b.probs, b.d_probs, shape_.logit_scale, context, b.d_scores);
    notify(observer, Phase::backward, "attn", "softmax_grad", b.d_scores, &b.d_probs, loss_scale);
    backend.token_scores_backward(b.qh, b.kh, b.d_scores, context, b.d_qh, b.d_kh);
    notify(observer, Phase::backward, "attn", "scores_grad", b.d_qh, &b.d_scores, loss_scale);
    // Each projection adds its share of the gradient w.r.t. LN1's output.
    bool first = true;
    for (auto [l, dyh, dy] : {std::tuple{BlockLinear::q, &b.d_qh, &b.d_q}, std::tuple{BlockLinear::k, &b.d_kh, &b.d_k},
                              std::tuple{BlockLinear::v, &b.d_vh, &b.d_v}}) {
        backend.merge_heads(*dyh, context, heads, *dy);
        linear(l).backward(backend, b.h1, *dy, &b.d_h1_part, f.matmul(l), fp8[at(l)]);
        backend.accumulate(b.d_h1_part, b.d_h1, first);
        first = false;
    }
    notify(observer, Phase::backward, "attn", "input_grad", b.d_h1, &b.d_attn_out, loss_scale);
}

const Tensor& TransformerBlock::input_of(BlockLinear l) const {
    if (!buffers_.current()) throw Error(name_ + ": no forward pass yet");
    const Buffers& b = *buffers_.current();
    switch (l) {
        case BlockLinear::q:
        case BlockLinear::k:
        case BlockLinear::v: return b.h1;
        case BlockLinear::proj: return b.mixed;
        case BlockLinear::fc: return b.h2;
        case BlockLinear::fc_proj: return b.act;
    }
    return b.h1;
}

const Tensor& TransformerBlock::output_of(BlockLinear l) const {
    if (!buffers_.current()) throw Error(name_ + ": no forward pass yet");
    const Buffers& b = *buffers_.current();
    switch (l) {
        case BlockLinear::q: return b.q;
        case BlockLinear::k: return b.k;
        case BlockLinear::v: return b.v;
        case BlockLinear::proj: return b.attn_out;
        case BlockLinear::fc: return b.act;
        case BlockLinear::fc_proj: return b.mlp_out;
    }
    return b.q;
}

const Tensor& TransformerBlock::output_grad_of(BlockLinear l) const {
    if (!buffers_.current()) throw Error(name_ + ": no forward pass yet");
    const Buffers& b = *buffers_.current();
    if (!b.has_gradients()) throw Error(name_ + ": no backward on the last forward's batch");
    switch (l) {
        case BlockLinear::q: return b.d_q;
        case BlockLinear::k: return b.d_k;
        case BlockLinear::v: return b.d_v;
        case BlockLinear::proj: return b.d_attn_out;
        case BlockLinear::fc: return b.d_fc;
        case BlockLinear::fc_proj: return b.d_mlp_out;
    }
    return b.d_q;
}

const Tensor& TransformerBlock::attention_probs() const {
    if (!buffers_.current()) throw Error(name_ + ": no forward pass yet");
    return buffers_.current()->probs;
}

}  // namespace plab
