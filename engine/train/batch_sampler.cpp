#include "engine/train/batch_sampler.h"

#include <numeric>
#include <utility>

namespace plab {

BatchSampler::BatchSampler(int rows, int batch_size, std::uint64_t seed)
    : rng_(seed), order_(static_cast<std::size_t>(rows)), batch_(static_cast<std::size_t>(batch_size)) {
    reshuffle();
}

// Fisher-Yates with the platform-independent Rng (std::shuffle is not).
void BatchSampler::reshuffle() {
    std::iota(order_.begin(), order_.end(), 0);
    for (std::size_t i = order_.size(); i > 1; --i) std::swap(order_[i - 1], order_[rng_.below(i)]);
    cursor_ = 0;
}

const std::vector<int>& BatchSampler::next() {
    for (int& row : batch_) {
        if (cursor_ == order_.size()) reshuffle();
        row = order_[cursor_++];
    }
    return batch_;
}

}  // namespace plab
