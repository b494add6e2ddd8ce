#pragma once
// The seeds of a run's random streams, all derived from its one seed: the
// data set, the initial weights, the order batches visit the rows. The
// trainer draws from them, and so does anything that must reproduce its
// draws outside it (plab run --export-init).
#include <cstdint>

#include "engine/data/dataset.h"

namespace plab {

inline std::uint64_t data_seed(std::uint64_t seed) { return seed; }
inline std::uint64_t init_seed(std::uint64_t seed) { return seed ^ 0x9e3779b97f4a7c15ull; }
inline std::uint64_t batch_seed(std::uint64_t seed) { return seed ^ 0xc2b2ae3d27d4eb4full; }

// A garbled step's random tokens (DatasetSpec::garbled_from): from the step
// and micro-batch alone, so a fork or a clone draws what the original would.
inline std::uint64_t garbled_seed(std::uint64_t seed, std::int64_t step, int micro_batch) {
    return seed ^ 0x165667b19e3779f9ull ^ (static_cast<std::uint64_t>(step) << 8) ^ static_cast<std::uint64_t>(micro_batch);
}

inline DatasetSpec seeded(DatasetSpec spec, std::uint64_t seed) {
    spec.seed = data_seed(seed);
    return spec;
}

}  // namespace plab
