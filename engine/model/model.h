#pragma once
// What a training step needs of a network, whichever it is: the MLP
// (mlp.h) or the tiny GPT (tiny_gpt.h). The trainer, the telemetry and the
// FP8 scaling see a model through this: a forward that leaves the mean loss
// on the backend, a backward that fills every parameter's grad, and the
// model's matmul layers in forward order, each with its weight, input,
// output and output gradient, and the parameter tables no matmul layer
// holds; the records' layers are those matmul layers followed by the tables
// (telemetry_layers.h).
#include <functional>
#include <string>
#include <vector>

#include "engine/amp/fp8_tensors.h"
#include "engine/amp/pass_formats.h"
#include "engine/backend/backend.h"
#include "engine/model/op_observer.h"
#include "engine/model/parameter.h"

namespace plab {

class Model {
public:
    virtual ~Model() = default;
    Model(const Model&) = delete;
    Model& operator=(const Model&) = delete;

    // The mean loss of the batch x (inputs, or token ids) against targets,
    // left in `loss` ({1, 1} FP32) on the backend: no host round trip.
    virtual void forward_into(Backend& backend, const Tensor& x, const Tensor& targets, const PassFormats& formats,
                              Tensor& loss, OpObserver* observer = nullptr) = 0;
    // The same, read back at once (it waits: for evaluation, not inside a step).
    float forward(Backend& backend, const Tensor& x, const Tensor& targets, const PassFormats& formats,
                  OpObserver* observer = nullptr) {
        forward_into(backend, x, targets, formats, eval_loss_, observer);
        float loss = 0.0f;
        backend.queue_download(eval_loss_, &loss);
        backend.wait_for_queued();  // where a GPU raises a bad label
        return loss;
    }
    // Gradients of (loss * loss_scale) into every parameter's `grad`; call
    // after a forward on the same batch.
    virtual void backward(Backend& backend, const Tensor& x, const Tensor& targets, float loss_scale,
                          OpObserver* observer = nullptr) = 0;

    // Every parameter in forward order.
    virtual std::vector<Parameter*> parameters() = 0;
    // What training changes besides the parameters (BatchNorm's running
    // statistics, PyTorch's buffers), in a fixed order: what a clone copies.
    virtual std::vector<Tensor*> running_state() { return {}; }

    // PyTorch's model.eval() and model.train(): while evaluating, a forward
    // normalises BatchNorm with its running statistics and changes nothing
    // (EvaluationScope sets it for a scope).
    void set_evaluating(bool on) { evaluating_ = on; }
    bool evaluating() const { return evaluating_; }

    // The matmul layers, in forward order: what PassFormats' per-layer lists
    // and the records' layers index.
    virtual int layer_count() const = 0;
    virtual std::string layer_name(int i) const = 0;  // "fc1", "h0.attn.q", "head"
    virtual const Parameter& layer_weight(int i) const = 0;
    // Of the last pass: layer i's input (x is the batch's input), its output
    // (after the activation that follows it, if any) and the gradient w.r.t.
    // its output before that activation.
    virtual const Tensor& layer_input(int i, const Tensor& x) const = 0;
    virtual const Tensor& activation(int i) const = 0;
    virtual const Tensor& activation_grad(int i) const = 0;
    // The layer a parameter belongs to (where a non-finite gradient is reported).
    virtual int layer_of(const Parameter& p) const = 0;

    // The parameter tables that no matmul layer holds, in forward order (a
    // GPT's token embedding when its head is untied, then its position
    // embedding; a tied head's weight is the token embedding and shows as
    // "head"). They are not matmul layers, so PassFormats, FP8 scaling and
    // the layer overrides never see them; the telemetry shows each after the
    // matmul layers, named by its parameter, with no activation.
    virtual std::vector<const Parameter*> tables() const { return {}; }

    // Softmax probabilities (classification, next token) or predictions
    // (regression) of the last forward.
    virtual const Tensor& outputs() const = 0;
    // f(tensor) for every buffer the kept passes hold: what the memory ledger counts.
    virtual void for_each_buffer(const std::function<void(const Tensor&)>& f) const = 0;

    // Per layer, the scales its FP8 matmuls use from the next pass on.
    virtual void set_fp8_scales(std::vector<Fp8Scales> scales) = 0;
    virtual const std::vector<Fp8Scales>& fp8_scales() const = 0;

    std::vector<std::string> layer_names() const {
        std::vector<std::string> names;
        for (int i = 0; i < layer_count(); ++i) names.push_back(layer_name(i));
        return names;
    }

protected:
    explicit Model(Backend& backend) : eval_loss_(backend.allocate({1, 1}, FormatId::fp32)) {}

private:
    Tensor eval_loss_;  // forward()'s mean loss on the backend, {1, 1} FP32
    bool evaluating_ = false;
};

// The model evaluates while this lives, and trains again after.
class EvaluationScope {
public:
    explicit EvaluationScope(Model& model) : model_(model) { model_.set_evaluating(true); }
    ~EvaluationScope() { model_.set_evaluating(false); }
    EvaluationScope(const EvaluationScope&) = delete;
    EvaluationScope& operator=(const EvaluationScope&) = delete;

private:
    Model& model_;
};

}  // namespace plab
