#pragma once
// A layer's per-batch buffers, one set per key (the batch's rows and the
// formats it runs in), a few kept at once. A model alternates between the
// training batch and the test set (each evaluation), and a language model
// with text samples (train/text_sampler.h) also runs single windows; keeping
// every set means no reallocation on each switch, so the tensors a recorded
// step holds stay where they are and its graph stays valid across
// evaluations and samples. Generation has a shape of its own rather than
// borrowing the training batch's: greedy decoding runs one forward per new
// character, and a whole batch of windows each time would cost as much as
// many training steps where one window costs a fraction of one.
#include "engine/common/recently_used.h"

namespace plab {

inline constexpr std::size_t kBufferSets = 3;  // the training batch, the test set, one sampled window

template <typename Key, typename Set>
using BufferSets = RecentlyUsed<Key, Set, kBufferSets>;

}  // namespace plab
