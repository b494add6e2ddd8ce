#include "ui/present/edit_gate.h"

namespace plab {

void EditGate::shown(std::string_view field, std::string value) {
    const auto it = last_.find(field);
    if (it == last_.end())
        last_.emplace(std::string(field), std::move(value));
    else
        it->second = std::move(value);
}

bool EditGate::finished(std::string_view field, const std::string& value) {
    const auto it = last_.find(field);
    if (it != last_.end() && it->second == value) return false;
    shown(field, value);
    return true;
}

}  // namespace plab
