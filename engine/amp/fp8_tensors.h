#pragma once
// The tensors an FP8 Linear layer casts to FP8 for its matmuls (docs/DESIGN.md, recipe
// `fp8`): forward inputs (activations and weights) are cast to E4M3, the
// gradients fed to the backward matmuls to E5M2, each after multiplying by
// its own per-tensor scale; the FP32 products are divided by the scales again.
// engine/amp/fp8_scaling.h decides the scales (delayed scaling).
#include <cstdint>

#include "engine/numeric/format.h"

namespace plab {

inline constexpr FormatId kFp8ForwardFormat = FormatId::e4m3;  // precision over range
inline constexpr FormatId kFp8GradFormat = FormatId::e5m2;     // range over precision

// The tensors of one layer that are cast to FP8, each with its own scale.
enum class Fp8Tensor : std::uint8_t { input, weight, grad };
inline constexpr Fp8Tensor kAllFp8Tensors[] = {Fp8Tensor::input, Fp8Tensor::weight, Fp8Tensor::grad};

constexpr FormatId fp8_format(Fp8Tensor t) { return t == Fp8Tensor::grad ? kFp8GradFormat : kFp8ForwardFormat; }

// One layer's scales for a step: a tensor is multiplied by its scale before
// the cast. Powers of two, so that scaling and unscaling are exact.
struct Fp8Scales {
    float input = 1.0f;
    float weight = 1.0f;
    float grad = 1.0f;

    float of(Fp8Tensor t) const { return t == Fp8Tensor::input ? input : t == Fp8Tensor::weight ? weight : grad; }
    float& of(Fp8Tensor t) { return t == Fp8Tensor::input ? input : t == Fp8Tensor::weight ? weight : grad; }
    bool operator==(const Fp8Scales&) const = default;
};

}  // namespace plab
