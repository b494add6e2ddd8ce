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

}  // namespace plab
