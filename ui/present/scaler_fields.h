#pragma once
// Which scaler kinds read which ScalerConfig field, for the panel that edits
// them: a field the run's kind ignores is shown but not editable, and says
// which kinds use it (an edit there would change nothing the run does).
#include <string>
#include <string_view>

#include "engine/amp/scaler_config.h"

namespace plab {

// Whether `kind` reads `field` ("init_scale", "growth_factor", "backoff_factor",
// "growth_interval", "hysteresis", "min_scale", "max_scale"); unknown fields: true.
bool scaler_uses(ScalerKind kind, std::string_view field);

// The tooltip of a field's control for the run's kind: empty when the kind
// uses it, else e.g. "min_scale is read by the hysteresis scaler only; this
// run's kind, dynamic, ignores it".
std::string scaler_field_note(ScalerKind kind, std::string_view field);

// The init_scale control's range, as powers of two: FP16's whole scale range
// and far beyond, all of it finite in FP32.
inline constexpr int kInitScaleLog2Min = -24;
inline constexpr int kInitScaleLog2Max = 64;

// The tooltip of a field's control: scaler_field_note() where the kind
// ignores the field, else what the field takes where that needs saying
// (init_scale's rounding to powers of two), else empty.
std::string scaler_field_tooltip(ScalerKind kind, std::string_view field);

}  // namespace plab
