// Telemetry and tracing ops on the CPU backend: the engine/numeric scans over
// a tensor's FP32 storage (which holds the values of its dtype exactly).
#include "engine/backend/cpu/cpu_backend.h"
#include "engine/telemetry/tensor_stats_path.h"

namespace plab {

namespace {

// One request, each view computed once: the pair scans where both views are asked for.
void run_request(const TelemetryRequest& r) {
    const float* x = r.x->host();
    const std::size_t n = r.x->size();
    if (r.stats && r.stats_divided) {
        const TensorStatsPair pair = compute_tensor_stats_pair(x, n, r.divisor);
        *r.stats = pair.held;
        *r.stats_divided = pair.divided;
    } else if (r.stats) {
        *r.stats = compute_tensor_stats(x, n, 1.0);
    } else if (r.stats_divided) {
        *r.stats_divided = compute_tensor_stats(x, n, r.divisor);
    }
    if (r.hist && r.hist_divided)
        plab::add_to_histogram_pair(x, n, r.divisor, *r.hist, *r.hist_divided);
    else if (r.hist)
        plab::add_to_histogram(x, n, 1.0, *r.hist);
    else if (r.hist_divided)
        plab::add_to_histogram(x, n, r.divisor, *r.hist_divided);
}

}  // namespace

// Run at once, on the calling thread. A worker thread that took them while
// the step went on measured slower on the two-vCPU machine this lab targets,
// twice over (docs/perf.md). Woken per step, its wake-up cost more than the
// scans it took over. Kept awake (spinning), it took nearly all the scans,
// yet a step with statistics got slower: the next step must take back every
// cache line the other core read. Measured alone, a write pass over a buffer
// is several times slower when the other core has read the buffer since.
void CpuBackend::queue_telemetry(const TelemetryRequest& request) { run_request(request); }

void CpuBackend::wait_for_queued() {}

void CpuBackend::add_to_histogram_pair(const Tensor& x, double divisor, Log2Histogram& held, Log2Histogram& divided) {
    plab::add_to_histogram_pair(x.host(), x.size(), divisor, held, divided);
}

TensorStatsPair CpuBackend::tensor_stats_pair(const Tensor& x, double divisor) {
    return compute_tensor_stats_pair(x.host(), x.size(), divisor);
}

void CpuBackend::add_to_histogram(const Tensor& x, double divisor, Log2Histogram& hist) {
    plab::add_to_histogram(x.host(), x.size(), divisor, hist);
}

float CpuBackend::finite_amax(const Tensor& x) { return plab::finite_amax(x.host(), x.size()); }

}  // namespace plab
