#include "ui/present/scaler_fields.h"

namespace plab {

std::string scaler_field_tooltip(ScalerKind kind, std::string_view field) {
    if (!scaler_uses(kind, field)) return scaler_field_note(kind, field);
    if (field != "init_scale") return {};
    // parse_power_of_two_scale() reads what is typed.
    return "A power of two from 2^" + std::to_string(kInitScaleLog2Min) + " to 2^" +
           std::to_string(kInitScaleLog2Max) +
           ": type 2^24, 16777216 or 1.6e7. Any other value is rounded to the nearest power of two "
           "(6.5e4 becomes 2^16), so that scaling the loss and unscaling the gradients stay exact. "
           "The arrows double and halve it.";
}

}  // namespace plab
