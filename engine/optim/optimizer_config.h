#pragma once
// Optimizer settings as a user edits them (presets, --set, the GUIs).
#include <optional>
#include <string>
#include <string_view>

namespace plab {

enum class OptimizerKind { sgd, adamw };
std::string_view optimizer_kind_name(OptimizerKind kind);                  // "sgd", "adamw"
std::optional<OptimizerKind> parse_optimizer_kind(std::string_view name);  // accepts the names above
std::string optimizer_kind_choices();                                      // "sgd|adamw"

struct OptimizerConfig {
    OptimizerKind kind = OptimizerKind::adamw;
    float lr = 0.01f;
    float momentum = 0.9f;       // sgd
    float beta1 = 0.9f;          // adamw
    float beta2 = 0.999f;        // adamw
    float eps = 1e-8f;           // adamw
    float weight_decay = 0.0f;   // sgd: coupled L2; adamw: decoupled
    float clip_norm = 0.0f;      // global L2 norm limit on the unscaled gradients; 0 = no clipping
    // The classic bug, on purpose: clip the still-scaled gradients (before the
    // unscale) by clip_norm, as the seeds' "AdaptiveScaler" does. Their norm is
    // S times the true one, so the clip shrinks every update by about S.
    // Ignored when clip_norm is 0.
    bool clip_scaled = false;
    int accumulation = 1;        // micro-batches per optimizer step

    bool operator==(const OptimizerConfig&) const = default;
};

// Throws plab::Error naming the first bad field ("optimizer.lr"), its value
// and the allowed range. Every field is checked whatever the kind.
void validate(const OptimizerConfig& config);

}  // namespace plab
