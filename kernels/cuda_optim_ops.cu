// The SGD and AdamW updates on the CUDA backend: the arithmetic is
// engine/optim/update_math.h, the CPU's own definition (one formula, two
// callers), compiled without FMA, so weights and optimizer state match the
// CPU bit for bit. One pass per parameter tensor writes the new weights and
// counts the moved and lost updates (integer sums: exact in any order).
#include <algorithm>
#include <string>
#include <vector>

#include "engine/backend/update_settings.h"
#include "engine/optim/update_math.h"
#include "kernels/cuda_backend.h"
#include "kernels/cuda_common.cuh"

namespace plab {

using gpu::device_floats;
using gpu::device_values;
using gpu::require;

namespace gpu {
// Where an update launched by update_all_on_device reads its gate
// (backend.h's UpdateGate, as device pointers); all null for update_all.
struct UpdateGateView {
    const float* settings = nullptr;
    const float* skip = nullptr;
    const float* step_count = nullptr;
    const float* adamw_table = nullptr;
    int table_rows = 0;
};
}  // namespace gpu

namespace {

using checks::require_fp32;

struct Counts {
    long long nonzero, lost;
};

struct AddCounts {
    __device__ Counts operator()(const Counts& a, const Counts& b) const {
        return {a.nonzero + b.nonzero, a.lost + b.lost};
    }
};

// w[i] (was `old`) = fresh rounded to w's dtype; an update moved the weight
// when fresh != old, and was lost when the stored value did not change
// (cpu_optim_ops.cpp's store_update).
__device__ __forceinline__ Counts store_update(const gpu::Values& w, std::size_t i, float old, float fresh) {
    const float stored = gpu::round_value(w.format, fresh);
    const bool moved = fresh != old;
    const bool lost = moved && stored == old;
    w.store(i, stored);
    return {moved ? 1LL : 0LL, lost ? 1LL : 0LL};
}

UpdateCount to_update_count(const Counts& c) { return {c.nonzero, c.lost}; }

// --- multi-tensor updates ---------------------------------------------------------

// One job of sgd_update_all / adamw_update_all as the kernel reads it.
struct UpdateSlice {
    gpu::Values w;
    const float* g;
    float* a;          // velocity, or AdamW's m; null for SGD without momentum
    float* b;          // AdamW's v
    gpu::Values copy;  // the stored copy of a master w; data null when none
    std::size_t n;
};

struct SgdElement {
    float lr, momentum, weight_decay;
    // A gated update reads its hyper-parameters where the step runs.
    __device__ void bind(const gpu::UpdateGateView& gate) {
        if (gate.settings == nullptr) return;
        const SgdStep s = load_sgd_settings(gate.settings);
        lr = s.lr;
        momentum = s.momentum;
        weight_decay = s.weight_decay;
    }
    __device__ Counts operator()(const UpdateSlice& s, std::size_t i) const {
        const float w = s.w[i];
        const float g = sgd_decayed_grad(w, s.g[i], weight_decay);
        if (s.a == nullptr || momentum == 0.0f)  // no buffer is read or written, as in sgd_update
            return store_update(s.w, i, w, sgd_apply(w, g, lr));
        s.a[i] = sgd_velocity(s.a[i], g, momentum);
        return store_update(s.w, i, w, sgd_apply(w, s.a[i], lr));
    }
};

struct AdamWElement {
    AdamWScalars k;
    // A gated update computes the t-independent scalars from the settings
    // kept on the device (as the host would), and reads step t's from the
    // table's row for the count kept there.
    __device__ void bind(const gpu::UpdateGateView& gate) {
        if (gate.settings != nullptr) k = adamw_fixed_scalars(load_adamw_settings(gate.settings));
        if (gate.adamw_table == nullptr) return;
        const int row = adamw_table_row(*gate.step_count, gate.table_rows);
        load_adamw_row(gate.adamw_table + static_cast<std::size_t>(row) * kAdamWTableWords, k);
    }
    __device__ Counts operator()(const UpdateSlice& s, std::size_t i) const {
        float m = s.a[i], v = s.b[i];
        const float w = s.w[i];
        const float fresh = adamw_element(w, s.g[i], m, v, k);
        s.a[i] = m;
        s.b[i] = v;
        return store_update(s.w, i, w, fresh);
    }
};

// Block row y updates job y (grid-stride) and refreshes its copy; the moved
// and lost counts go to counts[2y], counts[2y + 1] (integer atomics: exact).
// A skipped step (the gate's flag set) returns at once: nothing is written
// and the counts stay zero.
template <typename Element>
__global__ void update_all_kernel(const UpdateSlice* slices, Element element, gpu::UpdateGateView gate,
                                  unsigned long long* counts) {
    if (gate.skip != nullptr && *gate.skip != 0.0f) return;
    element.bind(gate);
    const UpdateSlice s = slices[blockIdx.y];
    unsigned moved = 0, lost = 0;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < s.n; i += stride) {
        const Counts c = element(s, i);
        moved += static_cast<unsigned>(c.nonzero);
        lost += static_cast<unsigned>(c.lost);
        if (s.copy.data) s.copy.store(i, s.w[i]);
    }
    const unsigned warp_moved = __reduce_add_sync(0xffffffffu, moved);
    const unsigned warp_lost = __reduce_add_sync(0xffffffffu, lost);
    if (threadIdx.x % 32 == 0) {
        if (warp_moved) atomicAdd(&counts[2 * blockIdx.y], static_cast<unsigned long long>(warp_moved));
        if (warp_lost) atomicAdd(&counts[2 * blockIdx.y + 1], static_cast<unsigned long long>(warp_lost));
    }
}

// An applied update adds one to the step count, after the update read it.
__global__ void advance_step_count_kernel(const float* skip, float* step_count) {
    if (skip == nullptr || *skip == 0.0f) *step_count += 1.0f;
}

// UpdateCount is the kernel's pair of counters, as the readback copies it.
static_assert(sizeof(UpdateCount) == 2 * sizeof(unsigned long long));

}  // namespace

// The checks of the single updates, per job, then one launch over all jobs.
template <typename Element>
unsigned long long* CudaBackend::launch_update_all(std::span<const UpdateJob> jobs, Element element, bool adamw,
                                                   const gpu::UpdateGateView& gate) {
    constexpr const char* op = "update_all";
    gpu::require_tensor_rows(jobs.size(), op);
    std::vector<UpdateSlice> table;
    TableKey key;
    std::size_t longest = 0;
    for (const UpdateJob& j : jobs) {
        for (const Tensor* t : {static_cast<const Tensor*>(j.w), j.g, static_cast<const Tensor*>(j.state_a),
                                static_cast<const Tensor*>(j.state_b), static_cast<const Tensor*>(j.copy)})
            key.add(t);
        gpu::require_same_shape(*j.w, *j.g, op);
        require_fp32(*j.g, op, "the gradient");
        UpdateSlice slice{device_values(*j.w, op), device_floats(*j.g, op), nullptr, nullptr, gpu::Values{},
                          j.w->size()};
        if (j.state_a) {
            gpu::require_same_shape(*j.w, *j.state_a, op);
            require_fp32(*j.state_a, op, adamw ? "the first moment" : "the momentum buffer");
            slice.a = device_floats(*j.state_a, op);
        }
        if (adamw) {
            require(j.state_a && j.state_b, [] { return std::string("adamw_update_all: a job lacks its moments"); });
            gpu::require_same_shape(*j.w, *j.state_b, op);
            require_fp32(*j.state_b, op, "the second moment");
            slice.b = device_floats(*j.state_b, op);
        }
        if (j.copy) {
            gpu::require_same_shape(*j.w, *j.copy, op);
            slice.copy = device_values(*j.copy, op);
        }
        table.push_back(slice);
        longest = std::max(longest, slice.n);
    }
    const std::size_t count_bytes = 2 * table.size() * sizeof(unsigned long long);
    auto* counts = static_cast<unsigned long long*>(scratch(gpu::kUpdateTable, count_bytes));
    if (jobs.empty()) return counts;
    const auto* slices = static_cast<const UpdateSlice*>(
        device_table(gpu::kUpdateTable, key, table.data(), table.size() * sizeof(UpdateSlice), op));
    gpu::check_cuda(cudaMemsetAsync(counts, 0, count_bytes, stream_), op);
    if (longest > 0) {
        const dim3 grid = gpu::multi_tensor_grid(longest, table.size());
        update_all_kernel<<<grid, gpu::kThreads, 0, stream_>>>(slices, element, gate, counts);
        gpu::check_cuda(cudaGetLastError(), op);
    }
    return counts;
}

// One copy of the counts, and a sync.
template <typename Element>
std::vector<UpdateCount> CudaBackend::update_all(std::span<const UpdateJob> jobs, Element element, bool adamw) {
    std::vector<UpdateCount> result(jobs.size());
    const unsigned long long* counts = launch_update_all(jobs, element, adamw, gpu::UpdateGateView{});
    if (jobs.empty()) return result;
    gpu::check_cuda(cudaMemcpyAsync(result.data(), counts, result.size() * sizeof(UpdateCount), cudaMemcpyDeviceToHost,
                                    stream_),
                    "update_all");
    gpu::wait_for_stream(stream_, "update_all");
    return result;
}

// No sync: the gate is read on the device, the counts land at the finish.
template <typename Element>
void CudaBackend::update_all_on_device(std::span<const UpdateJob> jobs, Element element, const UpdateGate& gate,
                                       bool adamw) {
    constexpr const char* op = "update_all_on_device";
    checks::require_update_gate(gate, jobs.size(), adamw, op);
    gpu::UpdateGateView view;
    view.settings = device_floats(*gate.settings, op);
    view.skip = gate.skip ? device_floats(*gate.skip, op) : nullptr;
    float* step_count = device_floats(*gate.step_count, op);
    view.step_count = step_count;
    if (adamw) {
        view.adamw_table = device_floats(*gate.adamw_table, op);
        view.table_rows = gate.adamw_table->rows();
    }
    const unsigned long long* counts = launch_update_all(jobs, element, adamw, view);
    stage_readback(counts, gate.counts.size() * sizeof(UpdateCount), gate.counts.data(), op);
    advance_step_count_kernel<<<1, 1, 0, stream_>>>(view.skip, step_count);
    gpu::check_cuda(cudaGetLastError(), op);
}

// The elements' scalars come from the gate's settings and table on the device (bind).
void CudaBackend::sgd_update_gated(std::span<const UpdateJob> jobs, const UpdateGate& gate) {
    update_all_on_device(jobs, SgdElement{}, gate, false);
}

void CudaBackend::adamw_update_gated(std::span<const UpdateJob> jobs, const UpdateGate& gate) {
    update_all_on_device(jobs, AdamWElement{}, gate, true);
}

std::vector<UpdateCount> CudaBackend::sgd_update_all(std::span<const UpdateJob> jobs, const SgdStep& step) {
    return update_all(jobs, SgdElement{step.lr, step.momentum, step.weight_decay}, false);
}

std::vector<UpdateCount> CudaBackend::adamw_update_all(std::span<const UpdateJob> jobs, const AdamWStep& step) {
    require(step.step >= 1, [&] { return "adamw_update: step " + std::to_string(step.step) + " must be >= 1"; });
    return update_all(jobs, AdamWElement{adamw_scalars(step)}, true);  // the scalars on the host, as PyTorch does
}

UpdateCount CudaBackend::sgd_update(Tensor& w, const Tensor& g, Tensor& velocity, const SgdStep& step) {
    constexpr const char* op = "sgd_update";
    gpu::require_same_shape(w, g, op);
    require_fp32(g, op, "the gradient");
    const gpu::Values pw = device_values(w, op);
    const float* pg = device_floats(g, op);
    const float lr = step.lr, momentum = step.momentum, weight_decay = step.weight_decay;
    void* partials = scratch(gpu::kReducePartials, gpu::kReduceScratchBytes);
    if (momentum == 0.0f) {  // no buffer is read or written, as in PyTorch
        return to_update_count(gpu::reduce<Counts>(
            w.size(), Counts{0, 0}, stream_, partials, op,
            [=] __device__(std::size_t i) {
                const float wi = pw[i];
                return store_update(pw, i, wi, sgd_apply(wi, sgd_decayed_grad(wi, pg[i], weight_decay), lr));
            },
            AddCounts{}));
    }
    gpu::require_same_shape(w, velocity, op);
    require_fp32(velocity, op, "the momentum buffer");
    float* pv = device_floats(velocity, op);
    return to_update_count(gpu::reduce<Counts>(
        w.size(), Counts{0, 0}, stream_, partials, op,
        [=] __device__(std::size_t i) {
            const float wi = pw[i];
            pv[i] = sgd_velocity(pv[i], sgd_decayed_grad(wi, pg[i], weight_decay), momentum);
            return store_update(pw, i, wi, sgd_apply(wi, pv[i], lr));
        },
        AddCounts{}));
}

UpdateCount CudaBackend::adamw_update(Tensor& w, const Tensor& g, Tensor& m, Tensor& v, const AdamWStep& step) {
    constexpr const char* op = "adamw_update";
    gpu::require_same_shape(w, g, op);
    gpu::require_same_shape(w, m, op);
    gpu::require_same_shape(w, v, op);
    require_fp32(g, op, "the gradient");
    require_fp32(m, op, "the first moment");
    require_fp32(v, op, "the second moment");
    require(step.step >= 1, [&] { return "adamw_update: step " + std::to_string(step.step) + " must be >= 1"; });
    const AdamWScalars k = adamw_scalars(step);  // on the host, as PyTorch does
    const gpu::Values pw = device_values(w, op);
    const float* pg = device_floats(g, op);
    float* pm = device_floats(m, op);
    float* pv = device_floats(v, op);
    return to_update_count(gpu::reduce<Counts>(
        w.size(), Counts{0, 0}, stream_, scratch(gpu::kReducePartials, gpu::kReduceScratchBytes), op,
        [=] __device__(std::size_t i) {
            float mi = pm[i], vi = pv[i];
            const float wi = pw[i];
            const float fresh = adamw_element(wi, pg[i], mi, vi, k);
            pm[i] = mi;
            pv[i] = vi;
            return store_update(pw, i, wi, fresh);
        },
        AddCounts{}));
}

}  // namespace plab
