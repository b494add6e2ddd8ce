#pragma once
// Which loss-scaler settings each kind of scaler reads (engine/amp/loss_scaler),
// so that a settings panel can disable the ones a kind ignores.
#include <string_view>

#include "engine/amp/scaler_config.h"

namespace plab {

enum class ScalerField { init_scale, growth_factor, backoff_factor, growth_interval, hysteresis, min_scale, max_scale };

// none reads no setting (S = 1); static reads init_scale; dynamic also the
// growth and backoff settings; hysteresis every one, hysteresis, min_scale
// and max_scale included.
bool scaler_reads(ScalerKind kind, ScalerField field);

// Why a field is disabled for a kind that ignores it, e.g.
// "max_scale: read by the hysteresis scaler only".
std::string_view scaler_field_unused_text(ScalerField field);

}  // namespace plab
