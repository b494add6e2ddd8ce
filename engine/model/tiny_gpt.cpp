#include "engine/model/tiny_gpt.h"

#include <cmath>

#include "engine/common/error.h"
#include "engine/common/field_check.h"
#include "engine/model/model_config.h"

namespace plab {

void validate(const GptSpec& spec) {
    check_int_field("vocabulary", spec.vocabulary, 2, 65536);
    validate(GptConfig{spec.context, spec.width, spec.heads, spec.layers, spec.tied_head, spec.logit_scale});
}

namespace {

GptSpec validated(const GptSpec& spec) {
    validate(spec);
    return spec;
}

BlockShape block_shape(const GptSpec& spec, float logit_scale) {
    return {spec.width, spec.heads, spec.context, logit_scale};
}

// Whether a tensor named `name` belongs to the module named `owner` ("ln_f.gamma" to "ln_f").
bool belongs_to(std::string_view name, std::string_view owner) {
    return name.size() > owner.size() && name.starts_with(owner) && name[owner.size()] == '.';
}

}  // namespace

TinyGpt::TinyGpt(Backend& backend, const GptSpec& spec)
    : Model(backend),
      spec_(validated(spec)),
      wte_(make_parameter(backend, std::string(gpt_names::kTokenTable), {spec.vocabulary, spec.width},
                          spec.weight_format, spec.master_weights)),
      wpe_(make_parameter(backend, std::string(gpt_names::kPositionTable), {spec.context, spec.width},
                          spec.weight_format, spec.master_weights)),
      ln_f_(backend, std::string(gpt_names::kFinalNorm), spec.width, spec.weight_format, spec.master_weights) {
    blocks_.reserve(static_cast<std::size_t>(spec.layers));
    for (int i = 0; i < spec.layers; ++i)
        blocks_.emplace_back(backend, gpt_names::block(i), block_shape(spec, logit_scale()), spec.weight_format,
                             spec.master_weights);
    if (!spec.tied_head)
        head_.emplace(backend, std::string(gpt_names::kHead), spec.width, spec.vocabulary, spec.weight_format, spec.master_weights);
}

float TinyGpt::logit_scale() const {
    if (spec_.logit_scale > 0.0f) return spec_.logit_scale;
    return static_cast<float>(1.0 / std::sqrt(static_cast<double>(spec_.width / spec_.heads)));
}

std::pair<int, BlockLinear> TinyGpt::locate(int i) const {
    if (i < 0 || i >= layer_count()) throw Error("TinyGpt: no layer " + std::to_string(i));
    return {i / static_cast<int>(kBlockLinears), static_cast<BlockLinear>(i % static_cast<int>(kBlockLinears))};
}

std::string TinyGpt::layer_name(int i) const {
    const auto [block, l] = locate(i);
    if (block == spec_.layers) return std::string(gpt_names::kHead);
    return blocks_[static_cast<std::size_t>(block)].linears()[static_cast<std::size_t>(l)]->name();
}

const Parameter& TinyGpt::layer_weight(int i) const {
    const auto [block, l] = locate(i);
    if (block == spec_.layers) return head_ ? head_->weight : wte_;
    return blocks_[static_cast<std::size_t>(block)].linears()[static_cast<std::size_t>(l)]->weight;
}

const TinyGpt::PassBuffers& TinyGpt::last_pass() const {
    if (!passes_.current()) throw Error("TinyGpt: no forward pass yet");
    return *passes_.current();
}

const Tensor& TinyGpt::layer_input(int i, const Tensor&) const {
    const auto [block, l] = locate(i);
    if (block == spec_.layers) return last_pass().h_f;
    return blocks_[static_cast<std::size_t>(block)].input_of(l);
}

const Tensor& TinyGpt::activation(int i) const {
    const auto [block, l] = locate(i);
    if (block == spec_.layers) return last_pass().logits;
    return blocks_[static_cast<std::size_t>(block)].output_of(l);
}

const Tensor& TinyGpt::activation_grad(int i) const {
    const auto [block, l] = locate(i);
    if (block == spec_.layers) return last_pass().d_logits;
    return blocks_[static_cast<std::size_t>(block)].output_grad_of(l);
}

int TinyGpt::layer_of(const Parameter& p) const {
    const std::string& n = p.name;
    const bool head = (n == gpt_names::kTokenTable && !head_) || belongs_to(n, gpt_names::kFinalNorm) ||
                      belongs_to(n, gpt_names::kHead);
    if (head) return layer_count() - 1;
    if (n == gpt_names::kTokenTable || n == gpt_names::kPositionTable) return 0;
    const int block = std::stoi(n.substr(1, n.find('.') - 1));
    const int first = block * static_cast<int>(kBlockLinears);
    const std::string_view part = std::string_view(n).substr(n.find('.') + 1);
    if (part.starts_with("ln1.")) return first;
    if (part.starts_with("ln2.")) return first + static_cast<int>(BlockLinear::fc);
    for (int l = 0; l < static_cast<int>(kBlockLinears); ++l)
        if (belongs_to(n, layer_name(first + l))) return first + l;
    throw Error("TinyGpt: no layer holds " + n);
}

std::vector<const Parameter*> TinyGpt::tables() const {
    if (head_) return {&wte_, &wpe_};
    return {&wpe_};
}

std::vector<Parameter*> TinyGpt::parameters() {
    std::vector<Parameter*> out{&wte_, &wpe_};
    for (TransformerBlock& block : blocks_)
        for (Parameter* p : block.parameters()) out.push_back(p);
    out.insert(out.end(), {&ln_f_.gamma, &ln_f_.beta});
    if (head_) out.insert(out.end(), {&head_->weight, &head_->bias});
    return out;
}

FormatId TinyGpt::final_norm_format(const PassFormats& formats) const {
    return formats.fp32_layer_norm ? FormatId::fp32 : head_compute(formats);
}

BlockFormats TinyGpt::block_formats(int block, const PassFormats& formats) const {
    BlockFormats f;
    const std::size_t first = static_cast<std::size_t>(block) * kBlockLinears;
    for (std::size_t i = 0; i < kBlockLinears; ++i) f.compute[i] = formats.layer_compute[first + i];
    f.accumulate = formats.accumulate;
    f.stream = spec_.weight_format;
    f.norm1 = formats.fp32_layer_norm ? FormatId::fp32 : f.of(BlockLinear::q);
    f.norm2 = formats.fp32_layer_norm ? FormatId::fp32 : f.of(BlockLinear::fc);
    f.softmax = formats.attention.fp32_softmax ? FormatId::fp32 : f.of(BlockLinear::q);
    return f;
}

const Fp8Scales* TinyGpt::fp8_of(std::size_t layer, const PassFormats& formats) const {
    static const Fp8Scales kUnscaled;
    if (!formats.fp8(layer)) return nullptr;
    return layer < fp8_scales_.size() ? &fp8_scales_[layer] : &kUnscaled;
}

BlockFp8 TinyGpt::block_fp8(int block, const PassFormats& formats) const {
    BlockFp8 fp8{};
    const std::size_t first = static_cast<std::size_t>(block) * kBlockLinears;
    for (std::size_t i = 0; i < kBlockLinears; ++i) fp8[i] = fp8_of(first + i, formats);
    return fp8;
}

TinyGpt::PassBuffers TinyGpt::make_pass(Backend& backend, const PassKey& key) const {
    const PassFormats& formats = key.formats;
    if (formats.layer_compute.size() != static_cast<std::size_t>(matmul_count()))
        throw Error("TinyGpt: " + std::to_string(formats.layer_compute.size()) + " layer formats for " +
                    std::to_string(matmul_count()) + " matmul layers");
    const Shape tokens{key.rows, spec_.width}, logits{key.rows, spec_.vocabulary};
    const FormatId head = head_compute(formats);
    PassBuffers b;
    for (int i = 0; i <= spec_.layers; ++i) {
        b.stream.push_back(backend.allocate(tokens, spec_.weight_format));
        b.d_stream.push_back(backend.allocate(tokens, spec_.weight_format));
    }
    for (int i = 0; i < spec_.layers; ++i) b.blocks.push_back(block_formats(i, formats));
    b.h_f = backend.allocate(tokens, final_norm_format(formats));
    b.d_h_f = backend.allocate(tokens, head);
    b.logits = backend.allocate(logits, head);
    b.d_logits = backend.allocate(logits, head);
    b.probs = backend.allocate(logits, formats.fp32_loss ? FormatId::fp32 : head);
    if (!head_) b.d_wte_head = backend.allocate({spec_.vocabulary, spec_.width}, head);
    return b;
}

void TinyGpt::for_each_buffer(const std::function<void(const Tensor&)>& f) const {
    auto visit = [&](const Tensor& t) {
        if (!t.empty()) f(t);
    };
    passes_.for_each([&](const PassKey&, const PassBuffers& b) {
        for (const std::vector<Tensor>* list : {&b.stream, &b.d_stream})
            for (const Tensor& t : *list) visit(t);
        for (const Tensor* t : {&b.h_f, &b.logits, &b.probs, &b.d_logits, &b.d_h_f, &b.d_wte_head}) visit(*t);
    });
    for (const TransformerBlock& block : blocks_) block.for_each_buffer(visit);
    ln_f_.for_each_row_stat(visit);
}

TinyGpt::PassBuffers& TinyGpt::pass(const Tensor& ids) const {
    const PassKey* key = passes_.current_key();
    if (!key || key->rows != ids.rows()) throw Error("TinyGpt::backward: call forward on this batch first");
    return *passes_.current();
}

const Tensor& TinyGpt::probs() const { return last_pass().probs; }
const Tensor& TinyGpt::logits() const { return last_pass().logits; }

void TinyGpt::notify(OpObserver* observer, Phase phase, std::string_view layer, std::string_view op,
                     const Tensor& out, const Tensor* in, float scale) const {
    if (observer) observer->after_op({phase, layer, op, out, in, scale});
}

void TinyGpt::forward_into(Backend& backend, const Tensor& ids, const Tensor& targets, const PassFormats& formats,
                           Tensor& loss, OpObserver* observer) {
    if (ids.cols() != 1 || ids.rows() % spec_.context != 0)
        throw Error("TinyGpt: ids " + shape_text(ids.shape()) + " are not whole windows of " +
                    std::to_string(spec_.context) + " tokens");
    PassBuffers& b =
        passes_.use(PassKey{ids.rows(), formats}, [&](const PassKey& key) { return make_pass(backend, key); });
    backend.embedding_forward(ids, wte_.value, wpe_.value, b.stream[0]);
    notify(observer, Phase::forward, gpt_names::kTokenTable, "embedding", b.stream[0], &wte_.value, 1.0f);
    for (std::size_t i = 0; i < blocks_.size(); ++i)
        blocks_[i].forward(backend, b.stream[i], b.stream[i + 1], b.blocks[i], block_fp8(static_cast<int>(i), formats),
                           observer);
    ln_f_.forward(backend, b.stream.back(), final_norm_format(formats), b.h_f);
    notify(observer, Phase::forward, gpt_names::kFinalNorm, "layer_norm", b.h_f, &b.stream.back(), 1.0f);
    const MatmulFormats head = head_matmul(formats);
    if (head_)
        head_->forward(backend, b.h_f, b.logits, head, fp8_of(formats.layer_compute.size() - 1, formats));
    else  // a tied head computes in its format, never in FP8
        backend.gemm(b.h_f, wte_.value, b.logits,
                     {.compute = head.compute, .trans_b = true, .accumulate = head.accumulate});
    notify(observer, Phase::forward, gpt_names::kHead, "matmul", b.logits, &b.h_f, 1.0f);
    backend.softmax_cross_entropy_into(b.logits, targets, formats.fp32_loss ? FormatId::fp32 : head.compute, b.probs,
                                       loss);
    notify(observer, Phase::loss, "loss", "softmax", b.probs, &b.logits, 1.0f);
    notify(observer, Phase::loss, "loss", "cross_entropy", loss, &b.logits, 1.0f);
}

void TinyGpt::head_backward(Backend& backend, PassBuffers& b, const PassFormats& formats) {
    const MatmulFormats head = head_matmul(formats);
    if (head_) {
        head_->backward(backend, b.h_f, b.d_logits, &b.d_h_f, head, fp8_of(formats.layer_compute.size() - 1, formats));
        return;
    }
    backend.gemm(b.d_logits, b.h_f, b.d_wte_head,
                 {.compute = head.compute, .trans_a = true, .accumulate = head.accumulate});
    backend.gemm(b.d_logits, wte_.value, b.d_h_f, {.compute = head.compute, .accumulate = head.accumulate});
}

void TinyGpt::backward(Backend& backend, const Tensor& ids, const Tensor& targets, float loss_scale,
                       OpObserver* observer) {
    PassBuffers& b = pass(ids);
    const PassFormats& formats = passes_.current_key()->formats;
    backend.softmax_cross_entropy_backward(b.probs, targets, loss_scale, b.d_logits);
    notify(observer, Phase::backward, "loss", "loss_grad", b.d_logits, &b.probs, loss_scale);
    head_backward(backend, b, formats);
    notify(observer, Phase::backward, gpt_names::kHead, "input_grad", b.d_h_f, &b.d_logits, loss_scale);
    const FormatId norm_compute = final_norm_format(formats);
    ln_f_.backward(backend, b.stream.back(), b.d_h_f, norm_compute, b.d_stream.back(), norm_compute);
    notify(observer, Phase::backward, gpt_names::kFinalNorm, "layer_norm_grad", b.d_stream.back(), &b.d_h_f,
           loss_scale);
    for (std::size_t i = blocks_.size(); i-- > 0;)
        blocks_[i].backward(backend, b.stream[i], b.d_stream[i + 1], b.d_stream[i],
                            block_fp8(static_cast<int>(i), formats), loss_scale, observer);
    ensure_grad(backend, wte_, spec_.weight_format);
    ensure_grad(backend, wpe_, spec_.weight_format);
    backend.embedding_backward(ids, b.d_stream[0], wte_.grad, wpe_.grad);
    // The tied head's share joins the embedding's in the weights' format, as
    // autograd adds the two uses' gradients in the leaf's dtype.
    if (!head_) backend.accumulate(b.d_wte_head, wte_.grad, false);
    notify(observer, Phase::backward, gpt_names::kTokenTable, "embedding_grad", wte_.grad, &b.d_stream[0],
           loss_scale);
}

}  // namespace plab
