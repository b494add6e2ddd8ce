#pragma once
// The implementations ("paths") of the telemetry scans, and the array-level
// checks the NaN tracer runs after every op.
//
// Every path returns the same bits (the tests compare them): the paths differ
// in the instruction set their plain loops were compiled for, and the AVX-512
// path in its hottest loops, written with intrinsics, and in counting chunks
// of FP16 or BF16 values on 16-bit keys (tensor_stats_scan_keys.h).
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "engine/telemetry/tensor_stats.h"

namespace plab {

enum class StatsPath : std::uint8_t {
    portable,  // the baseline instruction set; runs everywhere
    avx2,      // the same loops compiled with -mavx2
    avx512,    // the same loops compiled with -mavx512f -mavx512bw, the hottest written with intrinsics
};
inline constexpr StatsPath kAllStatsPaths[] = {StatsPath::portable, StatsPath::avx2, StatsPath::avx512};

std::string_view stats_path_name(StatsPath path);
// Paths this CPU can run, portable first.
std::vector<StatsPath> available_stats_paths();
// The path compute_tensor_stats() takes, chosen once from CPUID.
StatsPath best_stats_path();

// compute_tensor_stats() and add_to_histogram() on a given path; plab::Error
// when this CPU cannot run it.
TensorStats compute_tensor_stats(const float* x, std::size_t n, double divisor, StatsPath path);
TensorStatsPair compute_tensor_stats_pair(const float* x, std::size_t n, double divisor, StatsPath path);
void add_to_histogram(const float* x, std::size_t n, double divisor, Log2Histogram& hist, StatsPath path);
void add_to_histogram_pair(const float* x, std::size_t n, double divisor, Log2Histogram& held, Log2Histogram& divided,
                           StatsPath path);

// max |x| over the finite elements; 0 when there are none.
float finite_amax(const float* x, std::size_t n);

}  // namespace plab
