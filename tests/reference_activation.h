#pragma once
// The activation functions in double, from their closed forms: the
// independent reference the FP32 implementations are tested against.
#include <cmath>

#include "engine/backend/backend.h"

namespace plab::test {

inline double reference_activation(Activation a, double x) {
    switch (a) {
        case Activation::identity: return x;
        case Activation::relu: return x > 0 ? x : 0;
        case Activation::tanh: return std::tanh(x);
        case Activation::gelu: return 0.5 * x * (1 + std::erf(x / std::sqrt(2.0)));
    }
    return x;
}

}  // namespace plab::test
