#include "engine/amp/scaler_fields.h"

#include <algorithm>

#include "engine/common/error.h"

namespace plab {

namespace {

// The kinds that read a field (loss_scaler.cpp): none keeps S = 1 and reads
// nothing; static reads init_scale only; dynamic (PyTorch) adds the growth
// and backoff rule; hysteresis (DeepSpeed) adds its count and the floor and
// ceiling of the scale.
std::vector<ScalerKind> readers(std::string_view field) {
    using enum ScalerKind;
    if (field == "init_scale") return {static_scale, dynamic, hysteresis};
    if (field == "growth_factor" || field == "backoff_factor" || field == "growth_interval") return {dynamic, hysteresis};
    if (field == "hysteresis" || field == "min_scale" || field == "max_scale") return {hysteresis};
    return {none, static_scale, dynamic, hysteresis};
}

std::string kinds_text(const std::vector<ScalerKind>& kinds) {
    std::string names;
    for (std::size_t i = 0; i < kinds.size(); ++i) {
        if (i > 0) names += i + 1 == kinds.size() ? " and " : ", ";
        names += scaler_kind_name(kinds[i]);
    }
    return names;
}

// "init_scale" of "scaler.init_scale=1024"; empty for any other setting
// (scaler.kind is read by every kind, and "scaler={...}" sets the kind too).
std::string_view scaler_field_of(std::string_view setting) {
    constexpr std::string_view kPrefix = "scaler.";
    if (setting.substr(0, kPrefix.size()) != kPrefix) return {};
    const std::string_view rest = setting.substr(kPrefix.size());
    return rest.substr(0, rest.find('='));
}

}  // namespace

bool scaler_uses(ScalerKind kind, std::string_view field) {
    const std::vector<ScalerKind> kinds = readers(field);
    return std::find(kinds.begin(), kinds.end(), kind) != kinds.end();
}

std::string scaler_field_readers(std::string_view field) {
    const std::vector<ScalerKind> kinds = readers(field);
    const char* only = kinds.size() == 1 ? " scaler only" : " scalers";
    return std::string(field) + " is read by the " + kinds_text(kinds) + only;
}

std::string scaler_field_note(ScalerKind kind, std::string_view field) {
    if (scaler_uses(kind, field)) return {};
    return scaler_field_readers(field) + "; this run's kind, " + std::string(scaler_kind_name(kind)) + ", ignores it";
}

void require_read_scaler_settings(std::string_view option, const std::vector<std::string>& settings,
                                  const std::vector<ScalerKind>& kinds) {
    for (const std::string& setting : settings) {
        const std::string_view field = scaler_field_of(setting);
        if (field.empty() || kinds.empty() ||
            std::any_of(kinds.begin(), kinds.end(), [&](ScalerKind k) { return scaler_uses(k, field); }))
            continue;
        std::vector<ScalerKind> distinct;
        for (ScalerKind k : kinds)
            if (std::find(distinct.begin(), distinct.end(), k) == distinct.end()) distinct.push_back(k);
        const std::string have = kinds.size() == 1      ? "this run's scaler kind is " + kinds_text(distinct)
                                 : distinct.size() == 1 ? "every run's scaler kind is " + kinds_text(distinct)
                                                        : "the runs' scaler kinds are " + kinds_text(distinct);
        const ScalerKind reader = scaler_uses(ScalerKind::dynamic, field) ? ScalerKind::dynamic : ScalerKind::hysteresis;
        // A sweep's kind is set with --set (or an axis); the others take it as they took this setting.
        const std::string_view via = option == "--grid" ? "--set" : option;
        throw Error(std::string(option) + " " + setting + ": changes nothing: " + scaler_field_readers(field) +
                    ", and " + have + "; set a kind that reads it too, e.g. " + std::string(via) + " scaler.kind=" +
                    std::string(scaler_kind_name(reader)));
    }
}

}  // namespace plab
