#include "engine/optim/optimizer_config.h"

#include <cmath>
#include <string>

#include "engine/common/enum_names.h"
#include "engine/common/field_check.h"

namespace plab {

namespace {
constexpr EnumNames<OptimizerKind, 2> kOptimizerKindNames({{{OptimizerKind::sgd, "sgd"},
                                                            {OptimizerKind::adamw, "adamw"}}});
}  // namespace

std::string_view optimizer_kind_name(OptimizerKind kind) { return kOptimizerKindNames.name(kind); }
std::optional<OptimizerKind> parse_optimizer_kind(std::string_view name) { return kOptimizerKindNames.parse(name); }
std::string optimizer_kind_choices() { return kOptimizerKindNames.choices(); }

namespace {

void check_float(std::string_view field, float x, bool ok, std::string_view allowed) {
    check_number_field("optimizer." + std::string(field), x, ok, allowed);
}

// A momentum or beta: 1 would never forget, so PyTorch's [0, 1) is kept.
void check_decay_rate(std::string_view field, float x) { check_float(field, x, x >= 0.0f && x < 1.0f, "in [0, 1)"); }

}  // namespace

void validate(const OptimizerConfig& c) {
    check_float("lr", c.lr, std::isfinite(c.lr) && c.lr > 0.0f, "finite and > 0");
    check_decay_rate("momentum", c.momentum);
    check_decay_rate("beta1", c.beta1);
    check_decay_rate("beta2", c.beta2);
    check_float("eps", c.eps, std::isfinite(c.eps) && c.eps > 0.0f, "finite and > 0");
    check_float("weight_decay", c.weight_decay, std::isfinite(c.weight_decay) && c.weight_decay >= 0.0f,
                "finite and >= 0");
    check_float("clip_norm", c.clip_norm, c.clip_norm == 0.0f || (std::isfinite(c.clip_norm) && c.clip_norm > 0.0f),
                "0 (no clipping) or finite and > 0");
    check_int_field("optimizer.accumulation", c.accumulation, 1, 1024);
}

}  // namespace plab
