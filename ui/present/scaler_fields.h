#pragma once
// What the panel that edits the scaler says of each field: a field the run's
// kind ignores (engine/amp/scaler_fields.h) is shown but not editable, and
// says which kinds use it (an edit there would change nothing the run does).
#include <string>
#include <string_view>

#include "engine/amp/scaler_fields.h"

namespace plab {

// The init_scale control's range, as powers of two: FP16's whole scale range
// and far beyond, all of it finite in FP32.
inline constexpr int kInitScaleLog2Min = -24;
inline constexpr int kInitScaleLog2Max = 64;

// The tooltip of a field's control: scaler_field_note() where the kind
// ignores the field, else what the field takes where that needs saying
// (init_scale's rounding to powers of two), else empty.
std::string scaler_field_tooltip(ScalerKind kind, std::string_view field);

}  // namespace plab
