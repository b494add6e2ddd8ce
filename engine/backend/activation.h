#pragma once
// The activation functions a layer can use, and their names in presets and
// on the command line. A leaf header: model configuration and the math
// headers include it without the Backend interface.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace plab {

enum class Activation : std::uint8_t { identity, relu, tanh, gelu };
std::string_view activation_name(Activation a);
std::optional<Activation> parse_activation(std::string_view name);
std::string activation_choices();  // "identity|relu|tanh|gelu"

}  // namespace plab
