#pragma once
// The RunFactory a Session needs for real training: Trainers on one backend,
// which the factory keeps alive for as long as any copy of it exists.
#include <memory>

#include "engine/backend/backend.h"
#include "engine/train/run.h"
#include "engine/train/trainer.h"

namespace plab {

// Every trainer gets `options` (a viewer asks for decision grids here).
RunFactory trainer_factory(std::shared_ptr<Backend> backend, TrainerOptions options = {});

}  // namespace plab
