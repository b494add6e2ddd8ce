#include "ui/present/scaler_fields.h"

namespace plab {

bool scaler_reads(ScalerKind kind, ScalerField field) {
    switch (kind) {
        case ScalerKind::none: return false;
        case ScalerKind::static_scale: return field == ScalerField::init_scale;
        case ScalerKind::dynamic:
            return field != ScalerField::hysteresis && field != ScalerField::min_scale && field != ScalerField::max_scale;
        case ScalerKind::hysteresis: return true;
    }
    return false;
}

std::string_view scaler_field_unused_text(ScalerField field) {
    switch (field) {
        case ScalerField::init_scale: return "init_scale: not read without scaling (kind none: S = 1)";
        case ScalerField::growth_factor:
        case ScalerField::backoff_factor:
        case ScalerField::growth_interval: return "read by the dynamic and hysteresis scalers only (this one never moves S)";
        case ScalerField::hysteresis:
        case ScalerField::min_scale:
        case ScalerField::max_scale: return "read by the hysteresis scaler only";
    }
    return "";
}

}  // namespace plab
