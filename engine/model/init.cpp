#include "engine/model/init.h"

#include <cmath>
#include <numbers>
#include <string>

#include "engine/common/error.h"

namespace plab {

float activation_gain(Activation activation) {
    switch (activation) {
        case Activation::identity: return 1.0f;
        case Activation::relu: return std::numbers::sqrt2_v<float>;
        case Activation::tanh: return 5.0f / 3.0f;
        // PyTorch's calculate_gain has no entry for GELU (it raises). GELU is
        // ReLU with a smoothed knee: for x ~ N(0, 1), E[gelu(x)^2] = 0.425
        // against relu's 0.5, so the relu gain keeps the forward variance
        // within 15% per layer (sqrt(1 / 0.425) = 1.53 would be exact), and
        // it is what GELU networks commonly get (kaiming with "relu").
        case Activation::gelu: return std::numbers::sqrt2_v<float>;
    }
    throw Error("activation_gain: unknown activation " + std::to_string(static_cast<int>(activation)));
}

double init_std(InitKind kind, Activation activation, int fan_in, int fan_out) {
    if (fan_in < 1 || fan_out < 1)
        throw Error("init: fans " + std::to_string(fan_in) + " x " + std::to_string(fan_out) + " must both be >= 1");
    const double gain = activation_gain(activation);
    switch (kind) {
        case InitKind::kaiming: return gain / std::sqrt(static_cast<double>(fan_in));
        case InitKind::xavier: return gain * std::sqrt(2.0 / (static_cast<double>(fan_in) + fan_out));
    }
    throw Error("init: unknown kind " + std::to_string(static_cast<int>(kind)));
}

std::vector<float> init_weights(InitKind kind, Activation activation, int fan_in, int fan_out, Rng& rng,
                                double gain) {
    const double std_dev = gain * init_std(kind, activation, fan_in, fan_out);
    std::vector<float> w(static_cast<std::size_t>(fan_in) * static_cast<std::size_t>(fan_out));
    for (float& v : w) v = static_cast<float>(std_dev * rng.normal());
    return w;
}

}  // namespace plab
