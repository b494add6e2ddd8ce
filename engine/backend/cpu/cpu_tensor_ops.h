#pragma once
// Small helpers every CPU backend op file shares: the argument checks (one
// set for every backend, engine/backend/op_checks.h), and the final rounding
// of an op's output to its dtype.
#include <string>

#include "engine/backend/op_checks.h"
#include "engine/numeric/cast_array.h"
#include "engine/tensor/tensor.h"

namespace plab::cpu {

using checks::require;
using checks::require_same_shape;

// Rounds t's values to its dtype in place: every op's last step.
inline void round_to_dtype(Tensor& t) {
    if (t.dtype() != FormatId::fp32) round_array(t.dtype(), t.host(), t.host(), t.size());
}

}  // namespace plab::cpu
