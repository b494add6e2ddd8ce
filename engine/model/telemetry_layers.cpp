#include "engine/model/telemetry_layers.h"

#include <algorithm>

#include "engine/common/error.h"

namespace plab {

namespace {
bool is_matmul(const Model& model, int i) { return i >= 0 && i < model.layer_count(); }
}  // namespace

int telemetry_layer_count(const Model& model) {
    return model.layer_count() + static_cast<int>(model.tables().size());
}

std::vector<std::string> telemetry_layer_names(const Model& model) {
    std::vector<std::string> names = model.layer_names();
    for (const Parameter* table : model.tables()) names.push_back(table->name);
    return names;
}

const Parameter& telemetry_layer_weight(const Model& model, int i) {
    if (is_matmul(model, i)) return model.layer_weight(i);
    const std::vector<const Parameter*> tables = model.tables();
    const int table = i - model.layer_count();
    if (table < 0 || table >= static_cast<int>(tables.size()))
        throw Error("telemetry: no layer " + std::to_string(i));
    return *tables[static_cast<std::size_t>(table)];
}

const Tensor* telemetry_activation(const Model& model, int i) {
    return is_matmul(model, i) ? &model.activation(i) : nullptr;
}

const Tensor* telemetry_activation_grad(const Model& model, int i) {
    return is_matmul(model, i) ? &model.activation_grad(i) : nullptr;
}

int telemetry_layer_of(const Model& model, const Parameter& p) {
    const std::vector<const Parameter*> tables = model.tables();
    const auto it = std::find(tables.begin(), tables.end(), &p);
    if (it != tables.end()) return model.layer_count() + static_cast<int>(it - tables.begin());
    return model.layer_of(p);
}

}  // namespace plab
