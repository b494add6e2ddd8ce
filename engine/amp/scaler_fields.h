#pragma once
// Which scaler kinds read which ScalerConfig field. A field the kind ignores
// changes nothing the run does: the panels show it but do not let it be
// edited, and the command line refuses a setting of it that no run reads.
#include <string>
#include <string_view>
#include <vector>

#include "engine/amp/scaler_config.h"

namespace plab {

// Whether `kind` reads `field` ("init_scale", "growth_factor", "backoff_factor",
// "growth_interval", "hysteresis", "min_scale", "max_scale"); unknown fields: true.
bool scaler_uses(ScalerKind kind, std::string_view field);

// "init_scale is read by the static, dynamic and hysteresis scalers".
std::string scaler_field_readers(std::string_view field);

// Empty when `kind` reads `field`, else e.g. "min_scale is read by the
// hysteresis scaler only; this run's kind, dynamic, ignores it".
std::string scaler_field_note(ScalerKind kind, std::string_view field);

// plab::Error when one of `settings` ("scaler.init_scale=1024", as --set
// takes them) sets a scaler field that no kind of `kinds` (those of every run
// the settings reach) reads: the run would train unchanged. The message
// names `option` and the setting, says which kinds read the field and how
// to choose one (through `option`; a sweep's --grid through --set).
void require_read_scaler_settings(std::string_view option, const std::vector<std::string>& settings,
                                  const std::vector<ScalerKind>& kinds);

}  // namespace plab
