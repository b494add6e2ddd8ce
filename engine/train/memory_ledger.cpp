#include "engine/train/memory_ledger.h"

#include <functional>

#include "engine/amp/precision_policy.h"
#include "engine/common/error.h"
#include "engine/data/dataset.h"

namespace plab {

namespace {

// One side of a run (the mixed model or its twin): its parameters' tensors,
// the buffers of its training and evaluation passes, its optimizer's state.
// The format a hidden layer's norm computes and stores in (Mlp::norm_format).
FormatId norm_format(const ModelConfig& model, const PassFormats& formats, FormatId compute) {
    const bool fp32 = model.batch_norm ? formats.fp32_batch_norm : formats.fp32_layer_norm;
    return fp32 ? FormatId::fp32 : compute;
}

class SideLedger {
public:
    SideLedger(MemoryLedger& ledger, bool twin) : ledger_(ledger), twin_(twin) {}

    void add(TensorClass c, FormatId f, std::string what, std::int64_t elements) {
        if (elements == 0) return;
        for (LedgerLine& l : ledger_.lines)
            if (l.tensor_class == c && l.format == f && l.twin == twin_ && l.what == what) {
                l.elements += elements;
                return;
            }
        ledger_.lines.push_back({c, f, twin_, std::move(what), elements});
    }

    // make_parameter and ensure_grad (parameter.h): the value, an FP32 master
    // copy of a non-FP32 value, the gradient in the compute format, the
    // micro-batch sum in the value's format and the FP32 unscaled gradient.
    void parameter(std::int64_t elements, FormatId value, bool master_weights, FormatId compute) {
        add(TensorClass::weights, value, "parameter values", elements);
        if (master_weights && value != FormatId::fp32)
            add(TensorClass::master_copies, FormatId::fp32, "FP32 master copies", elements);
        add(TensorClass::gradients, compute, "gradients as computed (scaled)", elements);
        add(TensorClass::gradients, value, "gradients summed over micro-batches", elements);
        add(TensorClass::gradients, FormatId::fp32, "FP32 unscaled gradients", elements);
    }

    // Mlp::make_pass and LayerNorm's row statistics, for a pass of `rows`.
    void pass(const std::vector<int>& widths, const PassFormats& formats, const ModelConfig& model, int rows,
              const std::string& which) {
        const bool normed = model.layer_norm || model.batch_norm;
        const int layers = static_cast<int>(widths.size()) - 1;
        const std::string kept = "layer outputs, " + which, grads = "gradients of layer outputs, " + which;
        for (int i = 0; i < layers; ++i) {
            const FormatId compute = formats.layer_compute[static_cast<std::size_t>(i)];
            const std::int64_t n = static_cast<std::int64_t>(rows) * widths[static_cast<std::size_t>(i) + 1];
            add(TensorClass::activations, compute, kept, n);  // pre
            add(TensorClass::activations, compute, grads, n);  // d_pre
            if (i + 1 == layers) break;
            const FormatId norm = norm_format(model, formats, compute);
            const FormatId post = normed ? norm : compute;
            if (normed) {
                add(TensorClass::activations, norm, kept, n);   // normed
                add(TensorClass::activations, norm, grads, n);  // d_normed
            }
            if (model.layer_norm)
                add(TensorClass::activations, FormatId::fp32, "LayerNorm row statistics, " + which, 2 * rows);
            add(TensorClass::activations, post, kept, n);  // post
            add(TensorClass::activations, formats.layer_compute[static_cast<std::size_t>(i) + 1], grads, n);
        }
        const FormatId out = formats.fp32_loss ? FormatId::fp32 : formats.layer_compute.back();
        add(TensorClass::activations, out, "softmax outputs or predictions, " + which,
            static_cast<std::int64_t>(rows) * widths.back());
    }

private:
    MemoryLedger& ledger_;
    bool twin_;
};

void add_side(MemoryLedger& ledger, const RunConfig& c, const std::vector<int>& widths, int test_rows, bool twin) {
    SideLedger side(ledger, twin);
    const int layers = static_cast<int>(widths.size()) - 1;
    const PassFormats formats = twin ? twin_pass_formats(layers) : mixed_pass_formats(c.precision, layers);
    const FormatId value = twin ? FormatId::fp32 : recipe_weight_format(c.precision.recipe);
    const bool master = twin || c.precision.master_weights;
    std::int64_t parameters = 0;
    for (int i = 0; i < layers; ++i) {
        const std::int64_t in = widths[static_cast<std::size_t>(i)], out = widths[static_cast<std::size_t>(i) + 1];
        const FormatId compute = formats.layer_compute[static_cast<std::size_t>(i)];
        side.parameter(in * out + out, value, master, compute);  // weight and bias
        parameters += in * out + out;
        if ((c.model.layer_norm || c.model.batch_norm) && i + 1 < layers) {
            side.parameter(2 * out, value, master, norm_format(c.model, formats, compute));
            parameters += 2 * out;
        }
        // The last training batch's mean and rstd, and the running mean and variance.
        if (c.model.batch_norm && i + 1 < layers)
            side.add(TensorClass::activations, FormatId::fp32, "BatchNorm statistics", 4 * out);
    }
    side.pass(widths, formats, c.model, c.batch_size, "training batch");
    if (test_rows > 0) side.pass(widths, formats, c.model, test_rows, "test set");
    // Optimizer::state_tensor: FP32, one per parameter for momentum, two for AdamW.
    if (c.optimizer.kind == OptimizerKind::adamw)
        side.add(TensorClass::optimizer_state, FormatId::fp32, "AdamW moments m and v", 2 * parameters);
    else if (c.optimizer.momentum != 0.0f)
        side.add(TensorClass::optimizer_state, FormatId::fp32, "SGD momentum buffers", parameters);
}

}  // namespace

std::string_view tensor_class_name(TensorClass c) {
    switch (c) {
        case TensorClass::weights: return "weights";
        case TensorClass::master_copies: return "master copies";
        case TensorClass::gradients: return "gradients";
        case TensorClass::activations: return "activations";
        case TensorClass::optimizer_state: return "optimizer state";
    }
    return "?";
}

template <typename Keep, typename Bytes>
std::int64_t MemoryLedger::sum(bool with_twin, Keep keep, Bytes bytes_of) const {
    std::int64_t total = 0;
    for (const LedgerLine& l : lines)
        if ((with_twin || !l.twin) && keep(l)) total += std::invoke(bytes_of, l);
    return total;
}

std::int64_t MemoryLedger::bytes(TensorClass c, bool with_twin) const {
    return sum(with_twin, [c](const LedgerLine& l) { return l.tensor_class == c; }, &LedgerLine::bytes);
}

std::int64_t MemoryLedger::total_bytes(bool with_twin) const {
    return sum(with_twin, [](const LedgerLine&) { return true; }, &LedgerLine::bytes);
}

std::int64_t MemoryLedger::total_stored_bytes(bool with_twin) const {
    return sum(with_twin, [](const LedgerLine&) { return true; }, &LedgerLine::stored_bytes);
}

MemoryLedger memory_ledger(const RunConfig& config, int inputs, int outputs, int test_rows) {
    if (config.model.attention_tokens > 0)
        throw Error("memory ledger: model.attention_tokens is " + std::to_string(config.model.attention_tokens) +
                    "; the ledger counts MLPs only (attention_tokens 0)");
    std::vector<int> widths{inputs};
    widths.insert(widths.end(), config.model.hidden.begin(), config.model.hidden.end());
    widths.push_back(outputs);
    MemoryLedger ledger;
    ledger.widths = widths;
    add_side(ledger, config, widths, test_rows, false);
    if (config.twin) add_side(ledger, config, widths, test_rows, true);
    return ledger;
}

MemoryLedger memory_ledger(const RunConfig& config) {
    const Dataset data = make_dataset(config.data);
    return memory_ledger(config, data.input_dim, data.num_classes > 0 ? data.num_classes : 1, data.test.rows);
}

}  // namespace plab
