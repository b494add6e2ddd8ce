#pragma once
// A layer's per-batch buffers, one set per key (the batch's rows and the
// formats it runs in), a few kept at once. A model alternates between the
// training batch and the test set (each evaluation); keeping both sets means
// no reallocation on each switch, so the tensors a recorded step holds stay
// where they are and its graph stays valid across evaluations.
#include "engine/common/recently_used.h"

namespace plab {

inline constexpr std::size_t kBufferSets = 2;  // the training batch and the test set

template <typename Key, typename Set>
using BufferSets = RecentlyUsed<Key, Set, kBufferSets>;

}  // namespace plab
