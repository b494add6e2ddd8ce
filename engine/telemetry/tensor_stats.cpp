#include "engine/telemetry/tensor_stats.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <string>
#include <vector>

#include "engine/common/error.h"
#include "engine/numeric/cast_path.h"
#include "engine/numeric/scalar_cast.h"
#include "engine/telemetry/tensor_stats_bounds.h"
#include "engine/telemetry/tensor_stats_finish.h"
#include "engine/telemetry/tensor_stats_kernels.h"
#include "engine/telemetry/tensor_stats_path.h"

namespace plab {

namespace {

// Thresholds depend only on the divisor: the tensor as held (1) is derived
// once, and each thread keeps the last other divisor (the loss scale, which
// changes rarely), so a step pays for the derivation only when it changes.
template <typename T, T (*Derive)(double)>
const T& for_divisor(double divisor) {
    static const T as_held = Derive(1.0);
    if (divisor == 1.0) return as_held;
    thread_local double last_divisor = 0;  // never a valid divisor
    thread_local T last{};
    if (divisor != last_divisor) {
        last = Derive(divisor);
        last_divisor = divisor;
    }
    return last;
}

#if defined(__x86_64__)
// The AVX-512 scans compare 16-bit keys (AVX512BW) besides AVX512F's 32-bit values.
bool cpu_has_avx512bw() {
    static const bool has = [] {
        __builtin_cpu_init();
        return __builtin_cpu_supports("avx512bw") != 0;
    }();
    return has;
}
#endif

bool path_runs_here(StatsPath path) {
#if defined(__x86_64__)
    switch (path) {
        case StatsPath::portable: return true;
        case StatsPath::avx2: return cpu_supports(CastPath::avx2);
        case StatsPath::avx512: return cpu_supports(CastPath::avx512) && cpu_has_avx512bw();
    }
#endif
    return path == StatsPath::portable;
}

const detail::StatsKernels& kernels_of(StatsPath path) {
#if defined(__x86_64__)
    switch (path) {
        case StatsPath::portable: break;
        case StatsPath::avx2: return detail::avx2_stats_kernels();
        case StatsPath::avx512: return detail::avx512_stats_kernels();
    }
#endif
    (void)path;
    return detail::portable_stats_kernels();
}

const detail::StatsKernels& best_kernels() {
    static const detail::StatsKernels& k = kernels_of(best_stats_path());
    return k;
}

TensorStats run_stats(const detail::StatsKernels& k, const float* x, std::size_t n, double divisor) {
    detail::check_divisor(divisor);
    detail::StatsScan scan;
    k.scan(x, n, for_divisor<detail::ScanPlan, single_scan_plan>(divisor), &scan);
    return detail::stats_from_scan(scan, n, divisor);
}

TensorStatsPair run_stats_pair(const detail::StatsKernels& k, const float* x, std::size_t n, double divisor) {
    detail::check_divisor(divisor);
    detail::StatsScan scans[2];
    k.scan(x, n, for_divisor<detail::ScanPlan, pair_scan_plan>(divisor), scans);
    return {detail::stats_from_scan(scans[0], n, 1.0), detail::stats_from_scan(scans[1], n, divisor)};
}

void run_histogram(const detail::StatsKernels& k, const float* x, std::size_t n, double divisor,
                   Log2Histogram& hist) {
    detail::check_divisor(divisor);
    const detail::HistogramEdges& edges = for_divisor<detail::HistogramEdges, histogram_edges>(divisor);
    std::uint32_t counts[detail::kHistogramSlots] = {};
    k.histogram(x, n, edges, counts);
    detail::add_slot_counts(counts, hist);
}

// Adds the wide counts to `hist` as the histogram of x / 2^k: wide bin w
// holds |x| in [2^(w / B + kWideLowExponent), ...), so it lands in bin
// w - shift of x / 2^k, clamped like every histogram: the wide bins below
// the first bin all land in it, those above the last in the last, and the
// rest one to one (a loop that vectorises).
void add_shifted(const std::uint32_t* wide, int k, Log2Histogram& hist) {
    constexpr int B = Log2Histogram::kBinsPerBinade;
    constexpr int kLast = Log2Histogram::kBins - 1;
    const int shift = B * (Log2Histogram::kLowExponent + k - detail::kWideLowExponent);
    const int first = std::clamp(shift, 0, detail::kWideBins);  // wide bins [0, first) land in bin 0
    const int last = std::clamp(shift + kLast, first, detail::kWideBins);  // [last, kWideBins) in bin kLast
    std::uint32_t below = 0, above = 0;
    for (int w = 0; w < first; ++w) below += wide[w];
    for (int w = last; w < detail::kWideBins; ++w) above += wide[w];
    hist.bins[0] += below;
    for (int w = first; w < last; ++w) hist.bins[static_cast<std::size_t>(w - shift)] += wide[w];
    hist.bins[kLast] += above;
    hist.zeros += wide[detail::kWideBins];
    hist.nans += wide[detail::kWideBins + 1];
    hist.pos_infs += wide[detail::kWideBins + 2];
    hist.neg_infs += wide[detail::kWideBins + 3];
}

// One scan for both views when the divisor is a power of two 2^k (a dynamic
// scaler's scale always is), two otherwise; below a few thousand elements two
// plain scans cost less than clearing the wide counts.
void run_histogram_pair(const detail::StatsKernels& k, const float* x, std::size_t n, double divisor,
                        Log2Histogram& held, Log2Histogram& divided) {
    detail::check_divisor(divisor);
    int exponent = 0;
    const bool power_of_two = std::frexp(divisor, &exponent) == 0.5;
    constexpr std::size_t kWideWorthIt = 2048;
    if (!power_of_two || n < kWideWorthIt) {
        run_histogram(k, x, n, 1.0, held);
        run_histogram(k, x, n, divisor, divided);
        return;
    }
    detail::HistogramEdges edges = for_divisor<detail::HistogramEdges, histogram_edges>(1.0);
    edges.offset = detail::kWideOffset;
    std::array<std::uint32_t, detail::kWideSlots> wide{};
    k.histogram_wide(x, n, edges, wide.data());
    add_shifted(wide.data(), 0, held);
    add_shifted(wide.data(), exponent - 1, divided);
}

const detail::StatsKernels& checked_kernels(StatsPath path) {
    if (!path_runs_here(path)) {
        std::string available;
        for (StatsPath p : available_stats_paths())
            available += (available.empty() ? "" : "|") + std::string(stats_path_name(p));
        throw Error("stats path '" + std::string(stats_path_name(path)) + "' cannot run on this CPU; available: " +
                    available);
    }
    return kernels_of(path);
}

}  // namespace

std::string_view stats_path_name(StatsPath path) {
    switch (path) {
        case StatsPath::portable: return "portable";
        case StatsPath::avx2: return "avx2";
        case StatsPath::avx512: return "avx512";
    }
    return "?";
}

std::vector<StatsPath> available_stats_paths() {
    std::vector<StatsPath> paths;
    for (StatsPath p : kAllStatsPaths)
        if (path_runs_here(p)) paths.push_back(p);
    return paths;
}

StatsPath best_stats_path() {
    // Widest first (bench/stats_bench measures them).
    for (StatsPath p : {StatsPath::avx512, StatsPath::avx2})
        if (path_runs_here(p)) return p;
    return StatsPath::portable;
}

TensorStats compute_tensor_stats(const float* x, std::size_t n, double divisor, StatsPath path) {
    return run_stats(checked_kernels(path), x, n, divisor);
}

TensorStats compute_tensor_stats(const float* x, std::size_t n, double divisor) {
    return run_stats(best_kernels(), x, n, divisor);
}

TensorStatsPair compute_tensor_stats_pair(const float* x, std::size_t n, double divisor) {
    return run_stats_pair(best_kernels(), x, n, divisor);
}

TensorStatsPair compute_tensor_stats_pair(const float* x, std::size_t n, double divisor, StatsPath path) {
    return run_stats_pair(checked_kernels(path), x, n, divisor);
}

void add_to_histogram_pair(const float* x, std::size_t n, double divisor, Log2Histogram& held,
                           Log2Histogram& divided) {
    run_histogram_pair(best_kernels(), x, n, divisor, held, divided);
}

void add_to_histogram_pair(const float* x, std::size_t n, double divisor, Log2Histogram& held, Log2Histogram& divided,
                           StatsPath path) {
    run_histogram_pair(checked_kernels(path), x, n, divisor, held, divided);
}

float finite_amax(const float* x, std::size_t n) { return bits_float(best_kernels().finite_amax_bits(x, n)); }

void add_to_histogram(const float* x, std::size_t n, double divisor, Log2Histogram& hist) {
    run_histogram(best_kernels(), x, n, divisor, hist);
}

void add_to_histogram(const float* x, std::size_t n, double divisor, Log2Histogram& hist, StatsPath path) {
    run_histogram(checked_kernels(path), x, n, divisor, hist);
}

}  // namespace plab
