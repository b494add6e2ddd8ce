#pragma once
// The order training rows are visited in: a fresh seeded permutation per
// epoch, cut into batches; a batch that runs past the end of an epoch is
// completed from the next permutation, so every batch has the same size.
// The AMP run and its twin share one sampler, so they see the same batches.
#include <cstdint>
#include <vector>

#include "engine/data/random.h"

namespace plab {

class BatchSampler {
public:
    BatchSampler(int rows, int batch_size, std::uint64_t seed);

    // Row indices of the next batch (valid until the next call).
    const std::vector<int>& next();

private:
    void reshuffle();

    Rng rng_;
    std::vector<int> order_;
    std::size_t cursor_ = 0;
    std::vector<int> batch_;
};

}  // namespace plab
