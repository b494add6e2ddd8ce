#pragma once
// Splits a CPU op's independent work (output rows, elements, softmax groups)
// into contiguous slices, one per core. Every output is still computed by
// one thread in its fixed order, so the bits do not depend on the number of
// threads; only ops large enough to pay for waking a thread are split.
#include <cstddef>
#include <functional>

namespace plab::cpu {

// The cores this process may run on (taskset, a container's cpuset), not
// all the machine has.
std::size_t usable_cores();

// Cores the CPU backend's ops use (the calling thread and its helpers).
std::size_t slice_threads();

// body(begin, end) over [0, n), in at most slice_threads() slices of at
// least min_slice items each; runs on the calling thread alone when the work
// is small, when another op holds the helpers, or when called from a slice.
// body must not throw.
void parallel_slices(std::size_t n, std::size_t min_slice,
                     const std::function<void(std::size_t begin, std::size_t end)>& body);

}  // namespace plab::cpu
