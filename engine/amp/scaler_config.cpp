#include "engine/amp/scaler_config.h"

#include <cmath>

#include "engine/common/enum_names.h"
#include "engine/common/field_check.h"

namespace plab {

namespace {
constexpr EnumNames<ScalerKind, 4> kScalerKindNames({{{ScalerKind::none, "none"},
                                                      {ScalerKind::static_scale, "static"},
                                                      {ScalerKind::dynamic, "dynamic"},
                                                      {ScalerKind::hysteresis, "hysteresis"}}});
}  // namespace

std::string_view scaler_kind_name(ScalerKind kind) { return kScalerKindNames.name(kind); }
std::optional<ScalerKind> parse_scaler_kind(std::string_view name) { return kScalerKindNames.parse(name); }
std::string scaler_kind_choices() { return kScalerKindNames.choices(); }

namespace {

void check_float(std::string_view field, float x, bool ok, std::string_view allowed) {
    check_number_field("scaler." + std::string(field), x, ok, allowed);
}

void check_int(std::string_view field, int x, int lo, int hi) { check_int_field("scaler." + std::string(field), x, lo, hi); }

}  // namespace

void validate(const ScalerConfig& c) {
    check_float("init_scale", c.init_scale, std::isfinite(c.init_scale) && c.init_scale > 0.0f, "finite and > 0");
    check_float("growth_factor", c.growth_factor, std::isfinite(c.growth_factor) && c.growth_factor > 1.0f,
                "finite and > 1");
    check_float("backoff_factor", c.backoff_factor, c.backoff_factor > 0.0f && c.backoff_factor < 1.0f,
                "in (0, 1)");
    check_int("growth_interval", c.growth_interval, 1, 1000000);
    // The hysteresis kind's fields are checked whatever the kind, each in its
    // own range, so no preset stores a value that no kind could use...
    check_int("hysteresis", c.hysteresis, 1, 1000);
    check_float("min_scale", c.min_scale, std::isfinite(c.min_scale) && c.min_scale > 0.0f, "finite and > 0");
    check_float("max_scale", c.max_scale, c.max_scale == 0.0f || (std::isfinite(c.max_scale) && c.max_scale > 0.0f),
                "0 (no ceiling) or finite and > 0");
    // ...and tied to init_scale only where they act: other kinds ignore
    // them, so e.g. a dynamic scaler may start below the default min_scale of 1.
    if (c.kind == ScalerKind::hysteresis) {
        check_float("min_scale", c.min_scale, c.min_scale <= c.init_scale,
                    "> 0 and <= init_scale (" + shortest_number(c.init_scale) + ")");
        check_float("max_scale", c.max_scale, c.max_scale == 0.0f || c.max_scale >= c.init_scale,
                    "0 (no ceiling) or finite and >= init_scale (" + shortest_number(c.init_scale) + ")");
    }
    if (c.max_scale != 0.0f)
        check_float("max_scale", c.max_scale, c.max_scale >= c.min_scale,
                    "0 (no ceiling) or >= min_scale (" + shortest_number(c.min_scale) + ")");
}

void validate_scale(float scale) {
    check_float("scale", scale, std::isfinite(scale) && scale > 0.0f, "finite and > 0");
}

}  // namespace plab
