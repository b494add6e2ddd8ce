#pragma once
// What the telemetry and the records call a layer: the model's matmul layers
// in forward order (Model::layer_count(), so their indices are those of
// PassFormats' lists), then its parameter tables (Model::tables()). A table
// has a weight and a gradient but no activation: it is looked up, not
// multiplied, so its activation views stay empty.
#include <string>
#include <vector>

#include "engine/model/model.h"

namespace plab {

int telemetry_layer_count(const Model& model);
std::vector<std::string> telemetry_layer_names(const Model& model);
// Layer i's weight; throws plab::Error past the last layer.
const Parameter& telemetry_layer_weight(const Model& model, int i);
// Of the last pass: layer i's output and the gradient w.r.t. it
// (Model::activation, activation_grad); null for a table.
const Tensor* telemetry_activation(const Model& model, int i);
const Tensor* telemetry_activation_grad(const Model& model, int i);
// The telemetry layer where a parameter's non-finite gradient is reported:
// a table's own, else the matmul layer Model::layer_of names.
int telemetry_layer_of(const Model& model, const Parameter& p);

}  // namespace plab
