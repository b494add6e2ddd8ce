#pragma once
// Small helpers every CPU backend op file shares: argument checks with one
// message shape, and the final rounding of an op's output to its dtype.
#include <string>

#include "engine/common/error.h"
#include "engine/numeric/cast_array.h"
#include "engine/tensor/tensor.h"

namespace plab::cpu {

// `message` is a callable that builds the text: ops run thousands of times a
// second, so the string is made only when the check fails.
template <typename MakeMessage>
void require(bool ok, MakeMessage&& message) {
    if (!ok) [[unlikely]]
        throw Error(message());
}

inline void require_same_shape(const Tensor& a, const Tensor& b, const char* op) {
    require(a.shape() == b.shape(),
            [&] { return std::string(op) + ": shapes differ, " + shape_text(a.shape()) + " vs " + shape_text(b.shape()); });
}

// Rounds t's values to its dtype in place: every op's last step.
inline void round_to_dtype(Tensor& t) {
    if (t.dtype() != FormatId::fp32) round_array(t.dtype(), t.host(), t.host(), t.size());
}

}  // namespace plab::cpu
