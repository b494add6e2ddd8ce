#pragma once
// Trainer's private parts shared by trainer.cpp and trainer_live.cpp: one
// model with the optimizer, pass formats and parameter lists that go with it.
#include <memory>
#include <vector>

#include "engine/amp/fp8_scaling.h"
#include "engine/model/model.h"
#include "engine/optim/optimizer.h"
#include "engine/train/trainer.h"

namespace plab {

struct Trainer::Side {
    std::unique_ptr<Model> model;
    Optimizer optimizer;
    PassFormats formats;
    std::vector<Parameter*> params;           // forward order (the optimizer's)
    std::vector<Parameter*> backward_params;  // backward order (the first non-finite one is reported)
    std::vector<int> backward_layer;          // telemetry layer index of each backward_params entry
    Fp8Scaling fp8;                           // per-tensor scales of its FP8 layers (recipe fp8)
    Tensor loss;                              // {1, 1} on the backend: a micro-batch's mean loss
    std::vector<float> landed_losses;         // each micro-batch's, landed at the step's finish
};

}  // namespace plab
