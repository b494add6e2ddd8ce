#pragma once
// Loss scaler settings: which rule, and its parameters, as a user edits them
// (CLI flags, presets, the GUIs' scaler panel). docs/DESIGN.md, "Loss scaler".
#include <optional>
#include <string>
#include <string_view>

namespace plab {

enum class ScalerKind {
    none,          // no scaling: S = 1
    static_scale,  // S = init_scale forever
    dynamic,       // PyTorch GradScaler rule (exact)
    hysteresis,    // DeepSpeed/Megatron style: back off after `hysteresis` overflows
};
inline constexpr ScalerKind kAllScalerKinds[] = {ScalerKind::none, ScalerKind::static_scale, ScalerKind::dynamic,
                                                 ScalerKind::hysteresis};

std::string_view scaler_kind_name(ScalerKind kind);                  // "none", "static", ...
std::optional<ScalerKind> parse_scaler_kind(std::string_view name);  // accepts scaler_kind_name()
std::string scaler_kind_choices();                                   // "none|static|dynamic|hysteresis"

// Defaults are PyTorch's GradScaler defaults; the last three fields are read
// by the hysteresis kind only.
struct ScalerConfig {
    ScalerKind kind = ScalerKind::dynamic;
    float init_scale = 65536.0f;  // 2^16
    float growth_factor = 2.0f;
    float backoff_factor = 0.5f;
    int growth_interval = 2000;
    int hysteresis = 2;       // consecutive overflowing steps before a backoff
    float min_scale = 1.0f;   // floor of backoffs
    float max_scale = 0.0f;   // ceiling of growth; 0 = no ceiling

    bool operator==(const ScalerConfig&) const = default;
};

// Throws plab::Error naming the first bad field ("scaler.init_scale"), its
// value and the allowed range. The fields every kind reads are checked
// whatever the kind; hysteresis, min_scale and max_scale only for the
// hysteresis kind (the others ignore them), so a live switch to it checks
// them then, and a bad value leaves the run as it was.
void validate(const ScalerConfig& config);

// The live scale a user sets on a running scaler: finite and > 0. Throws
// plab::Error naming "scaler.scale".
void validate_scale(float scale);

}  // namespace plab
