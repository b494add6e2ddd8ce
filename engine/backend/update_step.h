#pragma once
// The hyper-parameters of one optimizer update and what it did. A leaf
// header: the update math (optim/update_math.h, shared with the GPU), the
// settings table and the optimizer include it without the Backend interface.
#include <cstdint>

namespace plab {

// Hyper-parameters of one optimizer update, already resolved for this step
// (learning rate after any schedule, bias corrections from the step count).
struct SgdStep {
    float lr = 0.01f;
    float momentum = 0.0f;      // velocity = momentum * velocity + g (PyTorch's SGD, dampening 0)
    float weight_decay = 0.0f;  // coupled L2: g += weight_decay * w before the momentum
};
struct AdamWStep {
    float lr = 1e-3f;
    float beta1 = 0.9f;
    float beta2 = 0.999f;
    float eps = 1e-8f;
    float weight_decay = 0.0f;  // decoupled: w -= lr * weight_decay * w
    int step = 1;               // 1-based, for the bias corrections 1 - beta^step
};

// What one optimizer update did to a tensor: how many elements had a
// non-zero update, and how many of those kept their stored value anyway
// (lost updates: FP16 weights without master weights).
struct UpdateCount {
    std::int64_t nonzero = 0;
    std::int64_t lost = 0;
};

}  // namespace plab
