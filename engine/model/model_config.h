#pragma once
// The network a preset asks for. Input and output widths come from the data
// set (2 inputs, one output per class; 1 and 1 for regression).
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "engine/backend/backend.h"

namespace plab {

enum class InitKind { kaiming, xavier };
std::string_view init_kind_name(InitKind kind);  // "kaiming", "xavier"
std::optional<InitKind> parse_init_kind(std::string_view name);
std::string init_kind_choices();

struct ModelConfig {
    std::vector<int> hidden = {64, 64};
    Activation activation = Activation::relu;
    bool layer_norm = false;  // LayerNorm after every hidden Linear, before the activation
    InitKind init = InitKind::kaiming;

    bool operator==(const ModelConfig&) const = default;
};

// Throws plab::Error naming the field ("model.hidden[1]") and the allowed range.
void validate(const ModelConfig& config);

}  // namespace plab
