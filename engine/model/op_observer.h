#pragma once
// A hook the model calls after every op of a pass, so that the NaN tracer can
// check each output the moment it is written (docs/DESIGN.md, "NaN tracing and diagnosis")
// without the model knowing about tracing. Null observer: no cost.
#include <string_view>

#include "engine/tensor/tensor.h"

namespace plab {

enum class Phase : std::uint8_t { forward, loss, backward, unscale, update };
std::string_view phase_name(Phase phase);  // "forward", "loss", ...

struct OpEvent {
    Phase phase;
    std::string_view layer;  // "fc2", "ln1", "loss"
    std::string_view op;     // "matmul", "relu", "layer_norm", "grad_input", ...
    const Tensor& output;
    const Tensor* input;     // the op's main input (for its amax); null when there is none
    float loss_scale;        // the scale the pass runs under (1 in forward)
};

class OpObserver {
public:
    virtual ~OpObserver() = default;
    virtual void after_op(const OpEvent& event) = 0;
};

}  // namespace plab
