// Reductions on the CUDA backend: column sums, the fused unscale + finite
// check, sum of squares, the NaN tracer's scans and the twin comparison.
//
// column_sums keeps the CPU's order (each column's rows in order): bit for
// bit the CPU's result. The whole-tensor reductions use the
// deterministic tree of cuda_common.cuh: the same result on every run, but a
// floating-point sum in another order than the CPU's index order (within the
// usual bound n * eps * sum |x| of it). Counts, flags and maxima are exact.
#include <cfloat>
#include <climits>
#include <algorithm>
#include <span>
#include <vector>

#include "engine/amp/scaler_rule.h"
#include "engine/optim/update_math.h"
#include "kernels/cuda_backend.h"
#include "kernels/cuda_common.cuh"

namespace plab {

using gpu::device_floats;
using gpu::device_values;

namespace gpu {
// Where unscale_all_kernel reads the inverse scale and leaves its verdict:
// inv_scale as given, or inverse_scale() of the scaler state's scale on the
// device (unscale_all_flagged); found_inf, when given, is set to 1 by any
// block that saw a NaN or Inf (all write the same value).
struct UnscaleScalars {
    float inv_scale = 1.0f;
    const float* state = nullptr;
    float* found_inf = nullptr;
};

}  // namespace gpu

namespace {

// |x| <= FLT_MAX is false exactly for NaN and +-Inf.
__device__ __forceinline__ bool is_finite_value(float x) { return fabsf(x) <= FLT_MAX; }

// One tensor of unscale_all, as the kernel reads it from the device table.
struct UnscaleSlice {
    gpu::Values src;
    float* dst;
    std::size_t n;
};

// Block row y unscales tensor y (grid-stride over its elements) and raises
// its flag when any output is NaN or Inf; every element is written.
__global__ void unscale_all_kernel(const UnscaleSlice* slices, gpu::UnscaleScalars k, int* flags) {
    const UnscaleSlice s = slices[blockIdx.y];
    const float inv_scale = k.state ? inverse_scale(k.state[0]) : k.inv_scale;
    int bad = 0;
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < s.n; i += stride) {
        const float v = s.src[i] * inv_scale;
        s.dst[i] = v;
        bad |= is_finite_value(v) ? 0 : 1;
    }
    if (__syncthreads_or(bad) && threadIdx.x == 0) {
        flags[blockIdx.y] = 1;
        if (k.found_inf) *k.found_inf = 1.0f;
    }
}

// The loss scaler's rule (scaler_rule.h, the host's own) on the device
// state, with the rule's parameters as the device holds them.
__global__ void update_scaler_kernel(const float* rule, const float* found_inf, float* state) {
    store_scaler_state(next_scaler_state(load_scaler_rule(rule), load_scaler_state(state), *found_inf != 0.0f), state);
}

// One tensor of sum_of_squares_all.
struct SquaresSlice {
    gpu::Values x;
    std::size_t n;
};

// The blocks gpu::reduce would use for n elements: each tensor is summed in
// the tree of cuda_common.cuh's deterministic reduction, as if alone.
__device__ unsigned reduce_blocks_for(std::size_t n) {
    const std::size_t wanted = (n + gpu::kThreads - 1) / gpu::kThreads;
    return static_cast<unsigned>(wanted < gpu::kReduceBlocks ? wanted : gpu::kReduceBlocks);
}

// Block (x, y) folds its strided share of tensor y's squares into
// partials[y * kReduceBlocks + x]; blocks beyond the tensor's own count exit.
__global__ void squares_blocks_kernel(const SquaresSlice* slices, float* partials) {
    const SquaresSlice s = slices[blockIdx.y];
    const unsigned blocks = reduce_blocks_for(s.n);
    if (blockIdx.x >= blocks) return;  // the whole block: no thread waits at a barrier
    float acc = 0.0f;
    const std::size_t stride = static_cast<std::size_t>(blocks) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < s.n; i += stride) {
        const float v = s.x[i];
        acc += v * v;
    }
    const float total = gpu::block_fold(acc, gpu::Add{});
    if (threadIdx.x == 0) partials[blockIdx.y * gpu::kReduceBlocks + blockIdx.x] = total;
}

// Block y folds tensor y's partials into out[y].
__global__ void squares_fold_kernel(const SquaresSlice* slices, const float* partials, float* out) {
    const unsigned blocks = reduce_blocks_for(slices[blockIdx.x].n);
    const float* mine = partials + blockIdx.x * gpu::kReduceBlocks;
    const float total = gpu::block_fold(threadIdx.x < blocks ? mine[threadIdx.x] : 0.0f, gpu::Add{});
    if (threadIdx.x == 0) out[blockIdx.x] = total;
}

// The global norm from the tensors' sums of squares, added in order as the
// host does; coef = the clip coefficient, or 1 when there is no clip (no
// max_norm or one <= 0, or the step is skipped).
__global__ void norm_and_coefficient_kernel(const float* sums, unsigned count, const float* max_norm,
                                            const float* skip, float* norm, float* coef) {
    float total = 0.0f;
    for (unsigned i = 0; i < count; ++i) total += sums[i];
    const float n = sqrtf(total);  // IEEE-rounded: nvcc's default -prec-sqrt=true
    *norm = n;
    const float limit = max_norm != nullptr ? *max_norm : 0.0f;
    const bool skipped = skip != nullptr && *skip != 0.0f;
    *coef = limit > 0.0f && !skipped ? clip_coefficient(limit, n) : 1.0f;
}

// One tensor of norm_and_clip's clip.
struct ClipSlice {
    gpu::Values x;
    std::size_t n;
};

// Block row y multiplies tensor y by the coefficient when it bites (the
// host's scale_in_place: FP32 product rounded to the dtype).
__global__ void clip_all_kernel(const ClipSlice* slices, const float* coef) {
    const float c = *coef;
    if (!clip_bites(c)) return;
    const ClipSlice s = slices[blockIdx.y];
    const std::size_t stride = static_cast<std::size_t>(gridDim.x) * blockDim.x;
    for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < s.n; i += stride)
        s.x.store(i, s.x[i] * c);
}

// column_sums in the CPU's order (each column's rows added one at a time
// from +0, rounded once at the end). A column is one chain of dependent
// adds: a block takes kWarp columns, and warp 0 adds one tile of rows from
// shared memory (a lane per column) while the other warps load the next tile
// into the other buffer, each with kRowsPerLoader loads in flight. Loading
// and adding in turn takes twice as long, one thread per column loading its
// own rows far longer; the loads still set the pace, well below the memory's
// speed (docs/perf.md).
constexpr int kSumWarps = 32;
constexpr int kSumLoaders = kSumWarps - 1;
constexpr int kRowsPerLoader = 6;
constexpr int kSumRows = kSumLoaders * kRowsPerLoader;  // a tile: two of them fill 47.6 KB of the 48 KB

__global__ void __launch_bounds__(kSumWarps * gpu::kWarp)
    column_sums_kernel(gpu::Values in, int rows, int cols, gpu::Values out) {
    // A warp writes or reads one row of a tile: 32 lanes, 32 banks, no conflict.
    __shared__ float tile[2][kSumRows][gpu::kWarp];
    const int lane = static_cast<int>(threadIdx.x) % gpu::kWarp;
    const int warp = static_cast<int>(threadIdx.x) / gpu::kWarp;
    const int j = static_cast<int>(blockIdx.x) * gpu::kWarp + lane;
    const int tiles = (rows + kSumRows - 1) / kSumRows;
    // Loader warp w (1..kSumLoaders) takes the tile's rows w-1, w-1 + kSumLoaders, ...:
    // neighbouring warps read neighbouring rows. All its loads are issued before any store.
    auto load = [&](int t) {
        float v[kRowsPerLoader];
#pragma unroll
        for (int k = 0; k < kRowsPerLoader; ++k) {
            const int r = t * kSumRows + (warp - 1) + k * kSumLoaders;
            v[k] = r < rows && j < cols ? in[static_cast<std::size_t>(r) * cols + j] : 0.0f;
        }
#pragma unroll
        for (int k = 0; k < kRowsPerLoader; ++k) tile[t & 1][(warp - 1) + k * kSumLoaders][lane] = v[k];
    };
    float sum = 0.0f;
    if (warp != 0 && tiles > 0) load(0);
    __syncthreads();
    for (int t = 0; t < tiles; ++t) {
        if (warp != 0) {
            if (t + 1 < tiles) load(t + 1);
        } else {
            const int here = rows - t * kSumRows < kSumRows ? rows - t * kSumRows : kSumRows;
#pragma unroll 8
            for (int r = 0; r < here; ++r) sum += tile[t & 1][r][lane];
        }
        __syncthreads();
    }
    if (warp == 0 && j < cols) out.store(j, sum);
}

// The twin's comparison sums (TensorComparison), trivially copyable for the reduction.
struct ComparisonSums {
    double diff_sq, a_sq, b_sq, dot;
};

}  // namespace

void CudaBackend::column_sums(const Tensor& x, Tensor& sums) {
    constexpr const char* op = "column_sums";
    gpu::require(sums.rows() == 1 && sums.cols() == x.cols(), [&] {
        return "column_sums: output " + shape_text(sums.shape()) + " does not fit " + shape_text(x.shape());
    });
    if (x.cols() == 0) return;
    const unsigned blocks = static_cast<unsigned>((x.cols() + gpu::kWarp - 1) / gpu::kWarp);
    column_sums_kernel<<<blocks, kSumWarps * gpu::kWarp, 0, stream_>>>(device_values(x, op), x.rows(), x.cols(),
                                                             device_values(sums, op));
    gpu::check_cuda(cudaGetLastError(), op);
}

bool CudaBackend::unscale_and_check(const Tensor& src, float inv_scale, Tensor& dst) {
    constexpr const char* op = "unscale_and_check";
    gpu::require_same_shape(src, dst, op);
    gpu::require(dst.dtype() == FormatId::fp32, [&] {
        return std::string(op) + ": the unscaled gradient must be FP32, not " +
               std::string(format_display_name(dst.dtype()));
    });
    const gpu::Values in = device_values(src, op);
    float* out = device_floats(dst, op);
    // One pass writes the FP32 gradient and ORs the check over all of it (no early exit).
    const int non_finite = gpu::reduce<int>(
        src.size(), 0, stream_, scratch(gpu::kReducePartials, gpu::kReduceScratchBytes), op,
        [=] __device__(std::size_t i) {
            out[i] = in[i] * inv_scale;
            return is_finite_value(out[i]) ? 0 : 1;
        },
        gpu::Or{});
    return non_finite != 0;
}

// Every gradient in one launch: a table of (src, dst, size) and a flag per
// tensor go to the device. Returns the device flags (one int per job).
int* CudaBackend::launch_unscale_all(std::span<const UnscaleJob> jobs, const gpu::UnscaleScalars& k,
                                     const char* op) {
    gpu::require_tensor_rows(jobs.size(), op);
    std::vector<UnscaleSlice> table;
    table.reserve(jobs.size());
    TableKey key;
    std::size_t longest = 0;
    for (const UnscaleJob& j : jobs) {
        key.add(j.src);
        key.add(j.dst);
        gpu::require_same_shape(*j.src, *j.dst, op);
        gpu::require(j.dst->dtype() == FormatId::fp32, [&] {
            return std::string(op) + ": the unscaled gradient must be FP32, not " +
                   std::string(format_display_name(j.dst->dtype()));
        });
        table.push_back({device_values(*j.src, op), device_floats(*j.dst, op), j.src->size()});
        longest = std::max(longest, j.src->size());
    }
    int* flags = static_cast<int*>(scratch(gpu::kUnscaleTable, jobs.size() * sizeof(int)));
    const auto* slices = static_cast<const UnscaleSlice*>(
        device_table(gpu::kUnscaleTable, key, table.data(), table.size() * sizeof(UnscaleSlice), op));
    gpu::check_cuda(cudaMemsetAsync(flags, 0, jobs.size() * sizeof(int), stream_), op);
    if (k.found_inf) gpu::check_cuda(cudaMemsetAsync(k.found_inf, 0, sizeof(float), stream_), op);  // 0.0f
    if (longest > 0) {
        const dim3 grid = gpu::multi_tensor_grid(longest, jobs.size());
        unscale_all_kernel<<<grid, gpu::kThreads, 0, stream_>>>(slices, k, flags);
        gpu::check_cuda(cudaGetLastError(), op);
    }
    return flags;
}

// The flags come back in one copy: one host sync per step instead of one per tensor.
int CudaBackend::unscale_all(std::span<const UnscaleJob> jobs, float inv_scale) {
    constexpr const char* op = "unscale_all";
    if (jobs.empty()) return -1;
    gpu::UnscaleScalars k;
    k.inv_scale = inv_scale;
    const int* flags = launch_unscale_all(jobs, k, op);
    std::vector<int> found(jobs.size());
    gpu::check_cuda(cudaMemcpyAsync(found.data(), flags, found.size() * sizeof(int), cudaMemcpyDeviceToHost, stream_),
                    op);
    gpu::wait_for_stream(stream_, op);
    for (std::size_t i = 0; i < found.size(); ++i)
        if (found[i]) return static_cast<int>(i);
    return -1;
}

// No copy and no sync: the scale is read and the verdict left on the device.
void CudaBackend::unscale_all_flagged(std::span<const UnscaleJob> jobs, const Tensor& state, Tensor& found_inf) {
    constexpr const char* op = "unscale_all_flagged";
    checks::require_scaler_state(state, op);
    checks::require_flag(found_inf, op);
    gpu::UnscaleScalars k;
    k.state = device_floats(state, op);
    k.found_inf = device_floats(found_inf, op);
    if (jobs.empty()) {
        gpu::check_cuda(cudaMemsetAsync(k.found_inf, 0, sizeof(float), stream_), op);
        return;
    }
    (void)launch_unscale_all(jobs, k, op);
}

void CudaBackend::update_scaler(const Tensor& rule, const Tensor& found_inf, Tensor& state) {
    constexpr const char* op = "update_scaler";
    checks::require_scaler_rule(rule, op);
    checks::require_scaler_state(state, op);
    checks::require_flag(found_inf, op);
    update_scaler_kernel<<<1, 1, 0, stream_>>>(device_floats(rule, op), device_floats(found_inf, op),
                                               device_floats(state, op));
    gpu::check_cuda(cudaGetLastError(), op);
}

float CudaBackend::sum_of_squares(const Tensor& x) {
    const Tensor* one[] = {&x};
    return sum_of_squares_all(one).front();
}

float* CudaBackend::launch_squares(std::span<const Tensor* const> xs, const char* op) {
    gpu::require_tensor_rows(xs.size(), op);
    std::vector<SquaresSlice> table;
    TableKey key;
    for (const Tensor* x : xs) {
        table.push_back({device_values(*x, op), x->size()});
        key.add(x);
    }
    // One scratch block: each tensor's block partials, then the sums and one float more.
    const std::size_t partial_bytes = table.size() * gpu::kReduceBlocks * sizeof(float);
    auto* partials =
        static_cast<float*>(scratch(gpu::kSquaresTable, partial_bytes + (xs.size() + 1) * sizeof(float)));
    float* out = partials + table.size() * gpu::kReduceBlocks;
    if (xs.empty()) return out;
    const auto* slices = static_cast<const SquaresSlice*>(
        device_table(gpu::kSquaresTable, key, table.data(), table.size() * sizeof(SquaresSlice), op));
    const dim3 grid(gpu::kReduceBlocks, static_cast<unsigned>(table.size()));
    const std::size_t shared = gpu::kThreads * sizeof(float);
    squares_blocks_kernel<<<grid, gpu::kThreads, shared, stream_>>>(slices, partials);
    gpu::check_cuda(cudaGetLastError(), op);
    squares_fold_kernel<<<static_cast<unsigned>(table.size()), gpu::kThreads, shared, stream_>>>(slices, partials, out);
    gpu::check_cuda(cudaGetLastError(), op);
    return out;
}

std::vector<float> CudaBackend::sum_of_squares_all(std::span<const Tensor* const> xs) {
    constexpr const char* op = "sum_of_squares";
    std::vector<float> sums(xs.size(), 0.0f);
    if (xs.empty()) return sums;
    const float* out = launch_squares(xs, op);
    gpu::check_cuda(cudaMemcpyAsync(sums.data(), out, sums.size() * sizeof(float), cudaMemcpyDeviceToHost, stream_),
                    op);
    gpu::wait_for_stream(stream_, op);
    return sums;
}

// The norm, and the clip decided on the device: one thread sums the
// tensors' sums in order (the host's order), a launch over all tensors
// applies the coefficient it left. No copy, no sync.
void CudaBackend::norm_and_clip(std::span<Tensor* const> xs, const Tensor* max_norm, const Tensor* skip,
                                Tensor& norm) {
    constexpr const char* op = "norm_and_clip";
    checks::require_scalar(norm, op, "the norm");
    if (max_norm) checks::require_scalar(*max_norm, op, "the max norm");
    if (skip) checks::require_scalar(*skip, op, "the skip flag");
    const std::vector<const Tensor*> tensors(xs.begin(), xs.end());
    float* sums = launch_squares(tensors, op);
    float* coef = sums + xs.size();  // the float of room after the sums
    const float* skip_flag = skip ? device_floats(*skip, op) : nullptr;
    const float* limit = max_norm ? device_floats(*max_norm, op) : nullptr;
    norm_and_coefficient_kernel<<<1, 1, 0, stream_>>>(sums, static_cast<unsigned>(xs.size()), limit, skip_flag,
                                                      device_floats(norm, op), coef);
    gpu::check_cuda(cudaGetLastError(), op);
    if (!max_norm || xs.empty()) return;
    std::vector<ClipSlice> table;
    TableKey key;
    std::size_t longest = 0;
    for (Tensor* x : xs) {
        table.push_back({device_values(*x, op), x->size()});
        key.add(x);
        longest = std::max(longest, x->size());
    }
    if (longest == 0) return;
    const auto* slices = static_cast<const ClipSlice*>(
        device_table(gpu::kClipTable, key, table.data(), table.size() * sizeof(ClipSlice), op));
    const dim3 grid = gpu::multi_tensor_grid(longest, table.size());
    clip_all_kernel<<<grid, gpu::kThreads, 0, stream_>>>(slices, coef);
    gpu::check_cuda(cudaGetLastError(), op);
}

float CudaBackend::finite_amax(const Tensor& x) {
    constexpr const char* op = "finite_amax";
    const gpu::Values v = device_values(x, op);
    return gpu::reduce<float>(
        x.size(), 0.0f, stream_, scratch(gpu::kReducePartials, gpu::kReduceScratchBytes), op,
        [=] __device__(std::size_t i) { return is_finite_value(v[i]) ? fabsf(v[i]) : 0.0f; },
        [] __device__(float a, float b) { return fmaxf(a, b); });
}

namespace {

// The comparison sums of a and b, left on the device (in the scratch `partials`).
ComparisonSums* launch_compare(cudaStream_t stream, void* partials, const Tensor& a, const Tensor& b, const char* op) {
    gpu::require_same_shape(a, b, op);
    const gpu::Values pa = device_values(a, op);
    const gpu::Values pb = device_values(b, op);
    return gpu::launch_reduce<ComparisonSums>(
        a.size(), ComparisonSums{0, 0, 0, 0}, stream, partials, op,
        [=] __device__(std::size_t i) {
            const double x = pa[i], y = pb[i];
            return ComparisonSums{(x - y) * (x - y), x * x, y * y, x * y};
        },
        [] __device__(const ComparisonSums& l, const ComparisonSums& r) {
            return ComparisonSums{l.diff_sq + r.diff_sq, l.a_sq + r.a_sq, l.b_sq + r.b_sq, l.dot + r.dot};
        });
}

// ComparisonSums is TensorComparison, field for field, so a copy of one is the other.
static_assert(sizeof(ComparisonSums) == sizeof(TensorComparison));

}  // namespace

TensorComparison CudaBackend::compare(const Tensor& a, const Tensor& b) {
    TensorComparison out;
    queue_compare(a, b, &out);
    wait_for_queued();
    return out;
}

void CudaBackend::queue_compare(const Tensor& a, const Tensor& b, TensorComparison* out) {
    constexpr const char* op = "compare";
    const ComparisonSums* sums =
        launch_compare(stream_, scratch(gpu::kReducePartials, gpu::kReduceScratchBytes), a, b, op);
    stage_readback(sums, sizeof(ComparisonSums), out, op);
}

}  // namespace plab
