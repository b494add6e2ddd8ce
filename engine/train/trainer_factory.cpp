#include "engine/train/trainer_factory.h"

#include "engine/train/trainer.h"

namespace plab {

RunFactory trainer_factory(std::shared_ptr<Backend> backend, TrainerOptions options) {
    return [backend, options](const RunConfig& config) -> std::unique_ptr<Run> {
        return std::make_unique<Trainer>(*backend, config, options);
    };
}

}  // namespace plab
