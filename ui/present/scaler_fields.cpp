#include "ui/present/scaler_fields.h"

#include <vector>

namespace plab {

namespace {

// The kinds that read a field (loss_scaler.cpp): none keeps S = 1 and reads
// nothing; static reads init_scale only; dynamic (PyTorch) adds the growth
// and backoff rule; hysteresis (DeepSpeed) adds its count and the floor and
// ceiling of the scale.
std::vector<ScalerKind> users(std::string_view field) {
    using enum ScalerKind;
    if (field == "init_scale") return {static_scale, dynamic, hysteresis};
    if (field == "growth_factor" || field == "backoff_factor" || field == "growth_interval") return {dynamic, hysteresis};
    if (field == "hysteresis" || field == "min_scale" || field == "max_scale") return {hysteresis};
    return {none, static_scale, dynamic, hysteresis};
}

}  // namespace

bool scaler_uses(ScalerKind kind, std::string_view field) {
    for (ScalerKind k : users(field))
        if (k == kind) return true;
    return false;
}

std::string scaler_field_note(ScalerKind kind, std::string_view field) {
    if (scaler_uses(kind, field)) return {};
    const std::vector<ScalerKind> kinds = users(field);
    std::string names;
    for (std::size_t i = 0; i < kinds.size(); ++i) {
        if (i > 0) names += i + 1 == kinds.size() ? " and " : ", ";
        names += scaler_kind_name(kinds[i]);
    }
    const char* only = kinds.size() == 1 ? " scaler only" : " scalers";
    return std::string(field) + " is read by the " + names + only + "; this run's kind, " +
           std::string(scaler_kind_name(kind)) + ", ignores it";
}

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
