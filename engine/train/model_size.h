#pragma once
// A run's model in words, for the messages that must say how big it is (an
// allocation that failed): the layer widths, the number of parameters, the
// batch, and whether the FP32 twin doubles it.
#include <cstdint>
#include <string>

#include "engine/train/run_config.h"

namespace plab {

// Weights and biases of the model a run builds for inputs of `inputs`
// features and `outputs` outputs: every Linear, norm and the attention
// block's four d x d projections. One copy (the twin has as many again).
std::int64_t parameter_count(const ModelConfig& model, int inputs, int outputs);

// "a 2-64-64-3 MLP (4.5 k parameters, batch 128, with its FP32 twin)".
std::string model_size_text(const RunConfig& config, int inputs, int outputs);

}  // namespace plab
