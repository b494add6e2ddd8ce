// Telemetry on the CUDA backend: the scans run on the device, on the
// backend's stream, as each request is queued, so they overlap whatever the
// host does next; their raw results land in a device arena, which
// wait_for_queued() copies to pinned host memory in one go (an event says
// when) and finishes with the CPU's own code (tensor_stats_finish.h).
//
// The kernels classify with the CPU's thresholds and histogram edges
// (tensor_stats_bounds.h) and its slot function (histogram_slot.h), so
// counts, fractions, amax and histograms are the CPU's exactly. The FP64
// sums behind mean |x| and RMS are folded in a fixed order of their own
// (deterministic, but not the CPU's 16-lane order): those two can differ
// from the CPU's in the last bit of the float.
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cstring>

#include "engine/telemetry/histogram_slot.h"
#include "engine/numeric/scalar_cast.h"
#include "engine/telemetry/tensor_stats_bounds.h"
#include "engine/telemetry/tensor_stats_finish.h"
#include "kernels/cuda_backend.h"
#include "kernels/cuda_common.cuh"
#include "kernels/cuda_step_graph.h"
#include "kernels/device_gate.h"

namespace plab {

using gpu::check_cuda;

namespace {

constexpr int kMaxThresholds = detail::ScanPlan::kMax;
constexpr std::uint32_t kInfBits = 0x7f800000u;
using gpu::kFullWarp;

// What the kernels of one request write (zeroed before they run).
struct DeviceScan {
    unsigned long long below[kMaxThresholds];  // #{i : bits(|x_i|) < plan.sorted[k]}
    unsigned long long pos_infs;
    unsigned int amax_bits;  // max bits(|x|) over finite x
    unsigned int unused;
    double sum_abs, sum_sq;  // over finite x
};
struct TelemetrySlot {
    DeviceScan scan;
    std::uint32_t hist[2][detail::kHistogramSlots];  // view 0, view 1
};
constexpr std::size_t kSlotsPerChunk = 64;
constexpr std::size_t kChunkBytes = kSlotsPerChunk * sizeof(TelemetrySlot);

// The sorted thresholds as a kernel parameter (constant bank, uniform reads).
struct Thresholds {
    std::uint32_t sorted[kMaxThresholds];
    int count;
};

struct SumPartial {
    double sum_abs, sum_sq;
};

constexpr int kScanThreads = 256;
constexpr int kWarps = kScanThreads / gpu::kWarp;
constexpr unsigned kMaxScanBlocks = gpu::kMaxReduceBlocks;

// The reductions' grid (cuda_common.cuh): it depends only on n and the
// device, so the fold order of the sums, and so their bits, are the same on
// every run.
unsigned scan_blocks(std::size_t n) { return gpu::reduce_grid(n); }

__device__ double warp_sum(double v) {
    for (int offset = 16; offset > 0; offset /= 2) v += __shfl_down_sync(kFullWarp, v, offset);
    return v;
}

// Counts go straight to the slot with integer atomics (exact in any order);
// each block's sums go to partials[block], folded in order by fold_sums_kernel.
__global__ void stats_kernel(gpu::Values x, std::size_t n, Thresholds th, DeviceScan* out, SumPartial* partials) {
    unsigned below[kMaxThresholds] = {};
    unsigned pos_infs = 0, amax = 0;
    double sum_abs = 0, sum_sq = 0;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const std::uint32_t u = float_bits(x[i]);
        const std::uint32_t a = u & 0x7fffffffu;
#pragma unroll
        for (int k = 0; k < kMaxThresholds; ++k) below[k] += (k < th.count && a < th.sorted[k]) ? 1u : 0u;
        pos_infs += u == kInfBits ? 1u : 0u;
        if (a < kInfBits) {
            amax = max(amax, a);
            const double v = bits_float(a);
            sum_abs += v;
            sum_sq += v * v;  // exact: a 24-bit significand squared fits FP64's 53 bits
        }
    }
    const int lane = static_cast<int>(threadIdx.x % 32), warp = static_cast<int>(threadIdx.x / 32);
#pragma unroll
    for (int k = 0; k < kMaxThresholds; ++k) {
        if (k >= th.count) break;  // uniform: th is the same for every thread
        const unsigned w = __reduce_add_sync(kFullWarp, below[k]);
        if (lane == 0 && w != 0) atomicAdd(&out->below[k], static_cast<unsigned long long>(w));
    }
    const unsigned infs = __reduce_add_sync(kFullWarp, pos_infs);
    const unsigned warp_amax = __reduce_max_sync(kFullWarp, amax);
    if (lane == 0) {
        if (infs != 0) atomicAdd(&out->pos_infs, static_cast<unsigned long long>(infs));
        atomicMax(&out->amax_bits, warp_amax);
    }
    __shared__ SumPartial warps[kWarps];
    const double warp_abs = warp_sum(sum_abs), warp_sq = warp_sum(sum_sq);
    if (lane == 0) warps[warp] = {warp_abs, warp_sq};
    __syncthreads();
    if (threadIdx.x == 0) {
        SumPartial block{0, 0};
        for (int w = 0; w < kWarps; ++w) {
            block.sum_abs += warps[w].sum_abs;
            block.sum_sq += warps[w].sum_sq;
        }
        partials[blockIdx.x] = block;
    }
}

__global__ void fold_sums_kernel(const SumPartial* partials, unsigned blocks, DeviceScan* out) {
    double sum_abs = 0, sum_sq = 0;
    for (unsigned b = 0; b < blocks; ++b) {
        sum_abs += partials[b].sum_abs;
        sum_sq += partials[b].sum_sq;
    }
    out->sum_abs = sum_abs;
    out->sum_sq = sum_sq;
}

// Slot counts of one or two views (edges) of x: per block in shared memory,
// then added to the slot's counts (integer atomics: exact in any order).
__global__ void histogram_kernel(gpu::Values x, std::size_t n, detail::HistogramEdges e0, detail::HistogramEdges e1,
                                 int views, std::uint32_t* counts) {
    constexpr int kSlots = detail::kHistogramSlots;
    __shared__ std::uint32_t local[2 * kSlots];
    for (int s = static_cast<int>(threadIdx.x); s < 2 * kSlots; s += blockDim.x) local[s] = 0;
    __syncthreads();
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
        const std::uint32_t u = float_bits(x[i]);
        atomicAdd(&local[detail::histogram_slot<Log2Histogram::kBins>(u, e0)], 1u);
        if (views == 2) atomicAdd(&local[kSlots + detail::histogram_slot<Log2Histogram::kBins>(u, e1)], 1u);
    }
    __syncthreads();
    for (int s = static_cast<int>(threadIdx.x); s < views * kSlots; s += blockDim.x)
        if (local[s] != 0) atomicAdd(&counts[s], local[s]);
}

// Plans and edges depend only on the divisor: derived once per divisor (the
// loss scale changes rarely), as the CPU's scans do.
struct DivisorCache {
    double divisor = 0;  // never a valid divisor
    detail::ScanPlan single, pair;
    detail::HistogramEdges edges;
};
const DivisorCache& derived_for(double divisor) {
    thread_local DivisorCache held, last;
    DivisorCache& c = divisor == 1.0 ? held : last;
    if (c.divisor != divisor) {
        c.single = single_scan_plan(divisor);
        c.pair = pair_scan_plan(divisor);
        c.edges = histogram_edges(divisor);
        c.divisor = divisor;
    }
    return c;
}

// The views a request asks for, as the CPU backend runs them (cpu_stats_ops.cpp):
// both in one scan when both are wanted, else the one.
void plan_stats(PendingTelemetry& p) {
    const TelemetryRequest& r = p.request;
    if (r.stats && r.stats_divided) {
        p.plan = derived_for(r.divisor).pair;
        p.view_stats[0] = r.stats;
        p.view_stats[1] = r.stats_divided;
        p.view_divisor[1] = r.divisor;
    } else if (r.stats) {
        p.plan = derived_for(1.0).single;
        p.view_stats[0] = r.stats;
    } else if (r.stats_divided) {
        p.plan = derived_for(r.divisor).single;
        p.view_stats[0] = r.stats_divided;
        p.view_divisor[0] = r.divisor;
    }
}

int plan_histograms(PendingTelemetry& p, detail::HistogramEdges edges[2]) {
    const TelemetryRequest& r = p.request;
    int views = 0;
    if (r.hist) {
        edges[views] = derived_for(1.0).edges;
        p.view_hist[views++] = r.hist;
    }
    if (r.hist_divided) {
        edges[views] = derived_for(r.divisor).edges;
        p.view_hist[views++] = r.hist_divided;
    }
    return views;
}

Thresholds thresholds_of(const detail::ScanPlan& plan) {
    Thresholds th{};
    std::copy(plan.sorted, plan.sorted + plan.count, th.sorted);
    th.count = plan.count;
    return th;
}

void finish_one(const PendingTelemetry& p, const TelemetrySlot& slot) {
    const DeviceScan& d = slot.scan;
    std::uint64_t below[kMaxThresholds];
    for (int k = 0; k < kMaxThresholds; ++k) below[k] = d.below[k];
    for (int v = 0; v < 2; ++v) {
        if (p.view_stats[v])
            *p.view_stats[v] = detail::stats_from_scan(
                detail::scan_view(p.plan, v, below, d.pos_infs, d.amax_bits, d.sum_abs, d.sum_sq), p.n,
                p.view_divisor[v]);
        if (p.view_hist[v]) detail::add_slot_counts(slot.hist[v], *p.view_hist[v]);
    }
}

}  // namespace

void* CudaBackend::telemetry_slot(std::size_t slot) {
    const std::size_t chunk = slot / kSlotsPerChunk;
    while (telemetry_.device_chunks.size() <= chunk) {
        // Not allocate(): result chunks are the queue's own, made while a step is captured too.
        telemetry_.device_chunks.push_back(device_tensor({1, static_cast<int>(kChunkBytes / sizeof(float))}));
        void* pinned = nullptr;
        const gpu::DeviceGateScope gate;
        check_cuda(cudaMallocHost(&pinned, kChunkBytes), "telemetry: cudaMallocHost");
        telemetry_.host_chunks.push_back(pinned);
    }
    auto* base = static_cast<TelemetrySlot*>(telemetry_.device_chunks[chunk].raw());
    return base + slot % kSlotsPerChunk;
}

void release_pinned(TelemetryQueue& q) {
    const gpu::DeviceGateScope gate;
    for (void* p : q.host_chunks) cudaFreeHost(p);
    q.host_chunks.clear();
    for (const PinnedStaging::Chunk& c : q.staging.chunks) cudaFreeHost(c.memory);
    q.staging = {};
    q.readbacks.clear();
    q.label_checks.clear();
    if (q.copied) cudaEventDestroy(q.copied);
    q.copied = nullptr;
}

void CudaBackend::release_telemetry() { release_pinned(telemetry_); }

void CudaBackend::queue_telemetry(const TelemetryRequest& request) {
    detail::check_divisor(request.divisor);
    PendingTelemetry p;
    p.request = request;
    p.n = request.x->size();
    p.slot = telemetry_.pending.size();
    auto* slot = static_cast<TelemetrySlot*>(telemetry_slot(p.slot));
    check_cuda(cudaMemsetAsync(slot, 0, sizeof(TelemetrySlot), stream_), "telemetry: clear");
    const gpu::Values x = gpu::device_values(*request.x, "telemetry");
    const unsigned blocks = scan_blocks(p.n);
    plan_stats(p);
    if (p.view_stats[0] && p.n > 0) {
        auto* partials =
            static_cast<SumPartial*>(scratch(gpu::kTelemetryPartials, kMaxScanBlocks * sizeof(SumPartial)));
        stats_kernel<<<blocks, kScanThreads, 0, stream_>>>(x, p.n, thresholds_of(p.plan), &slot->scan, partials);
        check_cuda(cudaGetLastError(), "telemetry: stats");
        // Stream order keeps the next request's stats_kernel off these partials until they are folded.
        fold_sums_kernel<<<1, 1, 0, stream_>>>(partials, blocks, &slot->scan);
        check_cuda(cudaGetLastError(), "telemetry: sums");
    }
    detail::HistogramEdges edges[2];
    const int views = plan_histograms(p, edges);
    if (views > 0 && p.n > 0) {
        histogram_kernel<<<blocks, kScanThreads, 0, stream_>>>(x, p.n, edges[0], edges[1], views, &slot->hist[0][0]);
        check_cuda(cudaGetLastError(), "telemetry: histogram");
    }
    telemetry_.pending.push_back(p);
}

namespace {

constexpr std::size_t kStagingChunkBytes = 64 * 1024;
constexpr std::size_t kStagingAlign = 16;

}  // namespace

void* CudaBackend::stage_bytes(std::size_t bytes) {
    PinnedStaging& s = telemetry_.staging;
    while (s.chunk < s.chunks.size() && s.used + bytes > s.chunks[s.chunk].capacity) {
        ++s.chunk;
        s.used = 0;
    }
    if (s.chunk == s.chunks.size()) {
        PinnedStaging::Chunk c;
        c.capacity = std::max(bytes, kStagingChunkBytes);
        const gpu::DeviceGateScope gate;
        check_cuda(cudaMallocHost(&c.memory, c.capacity), "readback: cudaMallocHost");
        s.chunks.push_back(c);
        s.used = 0;
    }
    void* staged = static_cast<unsigned char*>(s.chunks[s.chunk].memory) + s.used;
    s.used += (bytes + kStagingAlign - 1) / kStagingAlign * kStagingAlign;
    return staged;
}

void CudaBackend::stage_readback(const void* device, std::size_t bytes, void* host, const char* op) {
    if (bytes == 0) return;
    void* staged = stage_bytes(bytes);
    check_cuda(cudaMemcpyAsync(staged, device, bytes, cudaMemcpyDeviceToHost, stream_), op);
    telemetry_.readbacks.push_back({host, staged, bytes});
}

void CudaBackend::queue_download(const Tensor& t, float* host) {
    constexpr const char* op = "queue_download";
    if (t.element_bytes() == sizeof(float))
        return stage_readback(gpu::device_floats(t, op), t.size() * sizeof(float), host, op);
    gpu::require_on_device(t, op);  // 16-bit codes, decoded when they land
    if (t.size() == 0) return;
    stage_readback(t.raw(), t.size() * t.element_bytes(), host, op);
    telemetry_.readbacks.back().codes = t.dtype();
}

void CudaBackend::copy_results_to_host(TelemetryQueue& q) {
    const std::size_t used = q.pending.size();
    for (std::size_t chunk = 0; chunk * kSlotsPerChunk < used; ++chunk) {
        const std::size_t slots = std::min(kSlotsPerChunk, used - chunk * kSlotsPerChunk);
        check_cuda(cudaMemcpyAsync(q.host_chunks[chunk], q.device_chunks[chunk].raw(), slots * sizeof(TelemetrySlot),
                                   cudaMemcpyDeviceToHost, stream_),
                   "telemetry: copy");
    }
}

std::string CudaBackend::land(const TelemetryQueue& q) {
    for (const PendingTelemetry& p : q.pending) {
        const auto* host = static_cast<const TelemetrySlot*>(q.host_chunks[p.slot / kSlotsPerChunk]);
        finish_one(p, host[p.slot % kSlotsPerChunk]);
    }
    for (const PendingReadback& r : q.readbacks) {
        if (r.codes == FormatId::fp32)
            std::memcpy(r.host, r.staged, r.bytes);
        else
            decode_codes(r.codes, static_cast<const std::uint16_t*>(r.staged), r.bytes / sizeof(std::uint16_t),
                         static_cast<float*>(r.host));
    }
    for (const PendingLabelCheck& c : q.label_checks)
        if (c.landed.bad_row != INT_MAX) return bad_label_message(c.landed.bad_label, c.landed.bad_row, c.classes);
    return {};
}

void CudaBackend::wait_for_queued() {
    // The finish waits for the device: inside a captured step it would wait
    // for nothing and land nothing. Refused before anything else is checked.
    gpu::refuse_while_capturing(stream_, "wait_for_queued");
    // Queued uploads used the staging too: it is reclaimed below, after the wait.
    const bool queued = !telemetry_.pending.empty() || !telemetry_.readbacks.empty() ||
                        !telemetry_.label_checks.empty() || telemetry_.staging.used != 0 ||
                        telemetry_.staging.chunk != 0;
    if (!queued && !replayed_) return;
    // A replayed graph copied its results to its own pinned chunks itself.
    copy_results_to_host(telemetry_);
    if (!telemetry_.copied)
        check_cuda(cudaEventCreateWithFlags(&telemetry_.copied, cudaEventDisableTiming), "telemetry: event");
    check_cuda(cudaEventRecord(telemetry_.copied, stream_), "telemetry: event");
    gpu::next_host_wait();
    check_cuda(cudaEventSynchronize(telemetry_.copied), "telemetry: wait");
    std::string bad_label;
    if (replayed_) {
        const CudaStepGraph* graph = replayed_;
        replayed_ = nullptr;
        bad_label = land(graph->queue);
    }
    const std::string eager_bad_label = land(telemetry_);
    if (bad_label.empty()) bad_label = eager_bad_label;
    // The backend is clean again before anything throws.
    telemetry_.pending.clear();
    telemetry_.readbacks.clear();
    telemetry_.label_checks.clear();
    telemetry_.staging.chunk = 0;
    telemetry_.staging.used = 0;
    if (!bad_label.empty()) throw Error(bad_label);
}

// The one-shot queries (tensor_stats is Backend's) are a request finished at once.
TensorStatsPair CudaBackend::tensor_stats_pair(const Tensor& x, double divisor) {
    TensorStatsPair pair;
    queue_telemetry({.x = &x, .divisor = divisor, .stats = &pair.held, .stats_divided = &pair.divided});
    wait_for_queued();
    return pair;
}

void CudaBackend::add_to_histogram(const Tensor& x, double divisor, Log2Histogram& hist) {
    queue_telemetry({.x = &x, .divisor = divisor, .hist_divided = &hist});
    wait_for_queued();
}

void CudaBackend::add_to_histogram_pair(const Tensor& x, double divisor, Log2Histogram& held,
                                        Log2Histogram& divided) {
    queue_telemetry({.x = &x, .divisor = divisor, .hist = &held, .hist_divided = &divided});
    wait_for_queued();
}

}  // namespace plab
