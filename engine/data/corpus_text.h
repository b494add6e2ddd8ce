#pragma once
// The character corpus the language-model presets train on, built into the
// library (assets/corpus/README.md says what it is and where it comes from).
#include <string_view>

namespace plab {

std::string_view shakespeare_corpus();

}  // namespace plab
