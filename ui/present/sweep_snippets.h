#pragma once
// A sweep cell's loss-scaler settings as the code a person pastes into a
// training script: the PyTorch GradScaler call and the DeepSpeed "fp16"
// block (scaler_snippet.h writes both), under one heading each, with what
// either cannot express. Every run of a cell shares its scaler (a seed is no
// scaler setting), so the cell's first run speaks for it.
#include <cstddef>
#include <string>

#include "engine/sweep/sweep_grid.h"

namespace plab {

std::string sweep_cell_snippets(const SweepPlan& plan, std::size_t cell);

}  // namespace plab
