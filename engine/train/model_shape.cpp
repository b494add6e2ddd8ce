#include "engine/train/model_shape.h"

#include <numeric>

#include "engine/data/dataset.h"
#include "engine/data/token_data.h"

namespace plab {

namespace {

using I = std::int64_t;

// Adds into a shape, one line per kind of tensor: the lines say what holds
// the bytes, not which layer, so each kind is summed over the layers.
class ShapeBuilder {
public:
    explicit ShapeBuilder(std::string name) { shape_.name = std::move(name); }

    void parameters(const std::string& what, I elements, ParameterUse use = ParameterUse::other) {
        for (ParameterGroup& g : shape_.parameters)
            if (g.what == what && g.use == use) {
                g.elements += elements;
                return;
            }
        shape_.parameters.push_back({what, elements, use});
    }

    void saved(const std::string& what, I elements, std::optional<Fp32Op> op = {}, bool always_fp32 = false) {
        if (elements == 0) return;
        for (SavedActivation& s : shape_.saved)
            if (s.what == what) {
                s.elements += elements;
                return;
            }
        shape_.saved.push_back({what, elements, op, always_fp32});
    }

    void linear(I in, I out, I rows) {
        parameters("Linear weights", in * out, ParameterUse::matmul_weight);
        parameters("Linear biases", out, ParameterUse::matmul_bias);
        saved("Linear inputs", rows * in);
    }

    void layer_norm(I width, I rows) {
        parameters("LayerNorm gains and biases", 2 * width);
        saved("LayerNorm inputs", rows * width, Fp32Op::layer_norm);
        saved("LayerNorm row statistics", 2 * rows, {}, true);
    }

    void batch_norm(I width, I rows) {
        parameters("BatchNorm gains and biases", 2 * width);
        saved("BatchNorm inputs", rows * width, Fp32Op::batch_norm);
        saved("BatchNorm feature statistics", 2 * width, {}, true);
        shape_.buffers += 2 * width;
    }

    // q, k and v read one input: the first Linear counts it, the other two
    // add their parameters only.
    void attention(I width, I rows, I probabilities) {
        linear(width, width, rows);
        for (int i = 0; i < 2; ++i) linear(width, width, 0);
        saved("attention Q, K and V", 3 * rows * width);
        saved("attention probabilities", probabilities, Fp32Op::softmax);
        linear(width, width, rows);  // the output projection, reading the mixed values
    }

    void transformer_block(const TransformerShapeSpec& s, I rows) {
        layer_norm(s.width, rows);
        attention(s.width, rows, rows * s.heads * s.tokens);
        layer_norm(s.width, rows);
        linear(s.width, s.ffn, rows);
        saved("GELU inputs", rows * s.ffn);
        linear(s.ffn, s.width, rows);
    }

    void cross_entropy(I rows, I classes) {
        saved("log-probabilities of the loss", rows * classes, Fp32Op::softmax_cross_entropy);
    }

    ModelShape take() { return std::move(shape_); }

private:
    ModelShape shape_;
};

std::string widths_text(const std::vector<int>& widths) {
    std::string text;
    for (const int w : widths) text += (text.empty() ? "" : "-") + std::to_string(w);
    return text;
}

I rows_of(const TransformerShapeSpec& s) { return static_cast<I>(s.sequences) * s.tokens; }

std::string batch_text(const TransformerShapeSpec& s) {
    return "batch " + std::to_string(s.sequences) + " x " + std::to_string(s.tokens) + " tokens";
}

}  // namespace

std::int64_t ModelShape::parameter_count() const {
    return std::accumulate(parameters.begin(), parameters.end(), I{0},
                           [](I sum, const ParameterGroup& g) { return sum + g.elements; });
}

std::int64_t ModelShape::parameter_count(ParameterUse use) const {
    return std::accumulate(parameters.begin(), parameters.end(), I{0},
                           [use](I sum, const ParameterGroup& g) { return sum + (g.use == use ? g.elements : 0); });
}

std::int64_t ModelShape::saved_count() const {
    return std::accumulate(saved.begin(), saved.end(), I{0},
                           [](I sum, const SavedActivation& s) { return sum + s.elements; });
}

ModelShape mlp_shape(const MlpShapeSpec& spec) {
    ShapeBuilder b("a " + widths_text(spec.widths) + " MLP (batch " + std::to_string(spec.rows) + ")");
    const I rows = spec.rows;
    const std::size_t layers = spec.widths.size() - 1;
    for (std::size_t i = 0; i < layers; ++i) {
        const I out = spec.widths[i + 1];
        b.linear(spec.widths[i], out, rows);
        if (i + 1 == layers) break;
        if (spec.layer_norm) b.layer_norm(out, rows);
        if (spec.batch_norm) b.batch_norm(out, rows);
        if (spec.activation == Activation::gelu) b.saved("GELU inputs", rows * out);
        if (i == 0 && spec.attention_tokens > 0) b.attention(out, rows, rows * spec.attention_tokens * spec.attention_tokens);
    }
    const I outputs = spec.widths.back();
    if (spec.classes)
        b.cross_entropy(rows, outputs);
    else
        b.saved("predictions of the loss", rows * outputs, Fp32Op::mse);
    return b.take();
}

ModelShape gpt_shape(const TransformerShapeSpec& s, bool tied_head) {
    ShapeBuilder b("a GPT (" + std::to_string(s.layers) + " blocks, width " + std::to_string(s.width) + ", " +
                   std::to_string(s.heads) + " heads, vocabulary " + std::to_string(s.vocabulary) + ", " +
                   batch_text(s) + ")");
    const I rows = rows_of(s);
    // A tied head's matmul reads the token embedding, so autocast casts it.
    b.parameters("token embedding", static_cast<I>(s.vocabulary) * s.width,
                 tied_head ? ParameterUse::matmul_weight : ParameterUse::other);
    b.parameters("position embedding", static_cast<I>(s.positions) * s.width);
    for (int i = 0; i < s.layers; ++i) b.transformer_block(s, rows);
    b.layer_norm(s.width, rows);
    if (tied_head)
        b.saved("Linear inputs", rows * s.width);
    else
        b.linear(s.width, s.vocabulary, rows);
    b.cross_entropy(rows, s.vocabulary);
    return b.take();
}

ModelShape bert_large_shape(int sequences, int tokens) {
    TransformerShapeSpec s = kBertLarge;
    s.sequences = sequences;
    s.tokens = tokens;
    ShapeBuilder b("BERT-Large (24 layers, hidden 1024, 16 heads, FFN 4096, vocabulary 30522, " + batch_text(s) + ")");
    const I rows = rows_of(s);
    b.parameters("word embedding", static_cast<I>(s.vocabulary) * s.width);
    b.parameters("position embedding", static_cast<I>(s.positions) * s.width);
    b.parameters("token-type embedding", 2 * static_cast<I>(s.width));
    b.layer_norm(s.width, rows);
    for (int i = 0; i < s.layers; ++i) b.transformer_block(s, rows);
    b.linear(s.width, s.width, sequences);  // the pooler reads each sequence's first token
    b.saved("Tanh outputs", static_cast<I>(sequences) * s.width);
    return b.take();
}

ModelShape preset_model_shape(const RunConfig& c) {
    if (c.model.kind == ModelKind::gpt) {
        const GptConfig& g = c.model.gpt;
        const int vocabulary = make_token_data(token_data_spec(c.data), c.seed).vocabulary();
        return gpt_shape({.layers = g.layers, .width = g.width, .heads = g.heads, .ffn = 4 * g.width,
                          .vocabulary = vocabulary, .positions = g.context, .sequences = c.batch_size,
                          .tokens = g.context},
                         g.tied_head);
    }
    const Dataset data = make_dataset(c.data);
    std::vector<int> widths{data.input_dim};
    widths.insert(widths.end(), c.model.hidden.begin(), c.model.hidden.end());
    widths.push_back(data.num_classes > 0 ? data.num_classes : 1);
    return mlp_shape({.widths = widths, .activation = c.model.activation, .layer_norm = c.model.layer_norm,
                      .batch_norm = c.model.batch_norm,
                      .attention_tokens = c.model.attention_tokens, .classes = data.num_classes > 0,
                      .rows = c.batch_size});
}

}  // namespace plab
