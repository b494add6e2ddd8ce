#pragma once
// The tiny GPT's names for its parameters and layers, in one place: the model
// names its tensors with them, and preset_rules.h names its layers from a
// ModelConfig alone, where no model is built yet.
#include <array>
#include <string>
#include <string_view>

namespace plab::gpt_names {

inline constexpr std::string_view kTokenTable = "wte";     // the token embedding (the head too, when tied)
inline constexpr std::string_view kPositionTable = "wpe";  // the position embedding
inline constexpr std::string_view kFinalNorm = "ln_f";
inline constexpr std::string_view kHead = "head";  // the untied output projection, the last matmul layer
// A block's Linears in forward order (transformer_block.h's BlockLinear),
// each named "<block>.<this>".
inline constexpr std::array<std::string_view, 6> kBlockLinears = {"attn.q", "attn.k",  "attn.v",
                                                                  "attn.proj", "mlp.fc", "mlp.proj"};

inline std::string block(int i) { return "h" + std::to_string(i); }

inline std::string block_linear(const std::string& block_name, std::size_t l) {
    return block_name + "." + std::string(kBlockLinears.at(l));
}

}  // namespace plab::gpt_names
