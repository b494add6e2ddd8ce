#pragma once
// The RunFactory a Session needs for real training: Trainers on one backend,
// which the factory keeps alive for as long as any copy of it exists.
#include <memory>

#include "engine/backend/backend.h"
#include "engine/train/run.h"

namespace plab {

RunFactory trainer_factory(std::shared_ptr<Backend> backend);

}  // namespace plab
