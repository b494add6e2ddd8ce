#pragma once
// Seeded weight initialisation, the same on every platform: values come from
// plab::Rng (engine/data/random.h), never from std:: distributions, whose
// output differs between standard libraries.
//
// Only weights are drawn. Biases start at zero, as PyTorch's nn.Linear users
// usually set them for these schemes; zeroing them is the caller's job (a
// freshly allocated tensor already is).
#include <vector>

#include "engine/backend/activation.h"
#include "engine/data/random.h"
#include "engine/model/model_config.h"

namespace plab {

// PyTorch's torch.nn.init.calculate_gain for the activation that follows the
// layer: identity 1, relu sqrt(2), tanh 5/3; gelu sqrt(2) (see init.cpp).
float activation_gain(Activation activation);

// Standard deviation of the normal the weights are drawn from:
// kaiming (He, fan_in mode): gain / sqrt(fan_in);
// xavier (Glorot):           gain * sqrt(2 / (fan_in + fan_out)).
double init_std(InitKind kind, Activation activation, int fan_in, int fan_out);

// fan_in * fan_out weights, row-major fan_in x fan_out (Linear's in x out
// layout), each gain * std * rng.normal() in FP64 rounded once to FP32, drawn
// in index order so consecutive layers continue one seeded stream. `gain` is
// ModelConfig::init_gain: it scales the values, never the draws. Throws
// plab::Error when a fan is below 1.
std::vector<float> init_weights(InitKind kind, Activation activation, int fan_in, int fan_out, Rng& rng,
                                double gain = 1.0);

}  // namespace plab
