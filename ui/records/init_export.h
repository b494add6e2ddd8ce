#pragma once
// A run's starting point as NumPy files, for reproducing it elsewhere (the
// test that trains the same MLP in PyTorch): each Linear layer's initial
// weight and bias, the training set, and the rows of every batch the run
// will visit, in order (docs/telemetry.md, "Initial state").
#include <cstdint>
#include <string>

#include "engine/backend/backend.h"
#include "engine/train/run_config.h"
#include "engine/train/trainer.h"

namespace plab {

// Writes into `dir` (created if missing): <layer>.weight.npy (in x out,
// float32) and <layer>.bias.npy (out), train_x.npy (rows x inputs, float32),
// train_y.npy (rows: int32 class labels, or float32 targets), batches.npy
// (steps * accumulation x batch_size, int32 row indices). plab::Error for a
// model with a norm or attention (only plain MLPs are exported) or a dir
// that cannot be written.
void export_initial_state(const Trainer& trainer, Backend& backend, const RunConfig& config, const std::string& dir);

}  // namespace plab
