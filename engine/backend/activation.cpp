#include "engine/backend/activation.h"

#include "engine/common/enum_names.h"

namespace plab {

namespace {
constexpr EnumNames<Activation, 4> kActivationNames({{{Activation::identity, "identity"},
                                                      {Activation::relu, "relu"},
                                                      {Activation::tanh, "tanh"},
                                                      {Activation::gelu, "gelu"}}});
}  // namespace

std::string_view activation_name(Activation a) { return kActivationNames.name(a); }
std::optional<Activation> parse_activation(std::string_view name) { return kActivationNames.parse(name); }
std::string activation_choices() { return kActivationNames.choices(); }

}  // namespace plab
